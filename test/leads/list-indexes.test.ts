import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/account/account.service.ts';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { leadListFilter } from '../../src/leads/lead-filter.ts';
import { afterCursor, sortFor } from '../../src/leads/lead-list-page.ts';
import { importLeads } from '../../src/leads/lead-import.service.ts';
import { freshDatabaseUri } from '../support/database.ts';

/**
 * The list's new filters and its change order are answered from the lead indexes on the embedded store: `explain`
 * shows SQLite seeking an index (never scanning the table) and the filter and sort done in SQL.
 */
describe('lead list filters on the embedded store', () => {
  let workspaceId: string;
  beforeAll(async () => {
    await connectDatabase(freshDatabaseUri());
    ({ workspaceId } = await createWorkspace({ name: 'Plans', plan: 'business', email: 'plans@example.test' }));
    await importLeads(workspaceId, {
      leads: Array.from({ length: 300 }, (_, n) => ({ company: `C${n}`, score: n % 101, ...(n % 3 && { email: `p${n}@c${n}.test` }) })),
    });
  });
  afterAll(disconnectDatabase);

  const explain = async (filter: Record<string, unknown>, sort: Record<string, 1 | -1>) => {
    // A real find first: SQLite reads a changed schema when it runs a statement, not when it explains one.
    const db = mongoose.connection.db!;
    await db.collection('leads').findOne(filter);
    return (await db.command({ explain: { find: 'leads', filter, sort, limit: 101 } })) as Record<string, unknown>;
  };

  const created = sortFor('created');
  it.each([
    ['score_min and score_max', { score_min: 20, score_max: 60 }, created],
    ['email_status', { email_status: ['valid', 'accept_all'] as const }, created],
    ['has_email=true', { has_email: true }, created],
    ['has_email=false', { has_email: false }, created],
    ['created_after and created_before', { created_after: '2026-01-01T00:00:00Z', created_before: '2099-01-01T00:00:00Z' }, created],
    ['updated_after', { updated_after: '2026-01-01T00:00:00Z' }, sortFor('updated')],
  ])('seeks an index for %s, filtered and sorted in SQL', async (_, input, sort) => {
    const answer = await explain(leadListFilter(workspaceId, null, input as never), sort);
    const plan = JSON.stringify(answer.queryPlanner);
    expect(answer.filterPushdown).toBe(true);
    expect(answer.sortPushdown).toBe(true);
    expect(plan).toMatch(/SEARCH .* USING (COVERING )?INDEX/);
    expect(plan).not.toMatch(/detail=SCAN/);
    // Ties of the list's time are ordered by id (LAST n TERMS): never the whole list.
    expect(plan).not.toContain('TEMP B-TREE FOR ORDER BY');
  });

  it('seeks an index for the page after a cursor, in both orders', async () => {
    const lead = { _id: '0190a000-0000-7000-8000-000000000000', createdAt: new Date(), updatedAt: new Date() };
    for (const order of ['created', 'updated'] as const) {
      const { cursorAfter } = await import('../../src/leads/lead-list-page.ts');
      const input = order === 'updated' ? { updated_after: '2026-01-01T00:00:00Z' } : {};
      const filter = { ...leadListFilter(workspaceId, null, input), ...afterCursor(cursorAfter(order, lead), order, 0) };
      const answer = await explain(filter, sortFor(order));
      const plan = JSON.stringify(answer.queryPlanner);
      expect(answer.filterPushdown).toBe(true);
      expect(plan).not.toMatch(/detail=SCAN/);
    }
  });
});
