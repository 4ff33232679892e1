import fc from 'fast-check';
import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

/** One request against a workspace's leads; several are sent at once. */
type Operation =
  | { kind: 'import'; from: number; count: number }
  | { kind: 'delete'; picks: number[] }
  | { kind: 'archive' | 'restore'; picks: number[] }
  | { kind: 'patch'; pick: number; archived: boolean };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  // Overlapping ranges of the same 60 addresses: imports race on duplicates too.
  fc.record({ kind: fc.constant('import' as const), from: fc.nat(50), count: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant('delete' as const), picks: fc.array(fc.nat(200), { minLength: 1, maxLength: 8 }) }),
  fc.record({
    kind: fc.constantFrom('archive' as const, 'restore' as const),
    picks: fc.array(fc.nat(200), { minLength: 1, maxLength: 10 }),
  }),
  fc.record({ kind: fc.constant('patch' as const), pick: fc.nat(200), archived: fc.boolean() }),
);

/**
 * The figures users see (capacity's `used`, the list's `total` and `workspaceTotal`) are what
 * the store holds, whatever imports, deletes, archives and restores raced before.
 */
describe('lead counts under racing writes', () => {
  it('equal what the store holds after any rounds of racing imports, deletes, archives and restores', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(operation, { minLength: 2, maxLength: 6 }), { minLength: 1, maxLength: 4 }), async (rounds) => {
        const { apiKey, workspaceId } = await createTestWorkspace();
        const ids = async () =>
          ((await server.request('GET', '/api/leads?status=archived&limit=500', { key: apiKey })).body.leads as Array<{ id: string }>)
            .concat((await server.request('GET', '/api/leads?limit=500', { key: apiKey })).body.leads)
            .map((lead) => lead.id);
        for (const round of rounds) {
          const known = await ids();
          const idOf = (pick: number) => known[pick % Math.max(known.length, 1)] ?? '00000000-0000-4000-8000-000000000000';
          const answers = await Promise.all(
            round.map((op) => {
              switch (op.kind) {
                case 'import':
                  return server.request('POST', '/api/leads', {
                    key: apiKey,
                    body: { leads: Array.from({ length: op.count }, (_, n) => ({ email: `p${(op.from + n) % 60}@counts.test` })) },
                  });
                case 'delete':
                  return server.request('DELETE', '/api/leads', { key: apiKey, body: { ids: op.picks.map(idOf) } });
                case 'archive':
                case 'restore':
                  return server.request('PATCH', '/api/leads', {
                    key: apiKey,
                    body: { ids: op.picks.map(idOf), archived: op.kind === 'archive' },
                  });
                case 'patch':
                  return server.request('PATCH', `/api/leads/${idOf(op.pick)}`, { key: apiKey, body: { archived: op.archived } });
              }
            }),
          );
          // Refusals are of the request (an id deleted meanwhile: 404), never of the service.
          for (const answer of answers) expect(answer.status).toBeLessThan(500);
          if (round.some((op) => op.kind === 'import')) expect(answers.some((answer) => answer.status === 201)).toBe(true);
          const leads = mongoose.connection.db!.collection('leads');
          const stored = await leads.countDocuments({ workspaceId, archivedAt: null });
          const all = await leads.countDocuments({ workspaceId });
          const capacity = await server.request('GET', '/api/leads/capacity', { key: apiKey });
          const list = await server.request('GET', '/api/leads?limit=1', { key: apiKey });
          expect(capacity.body.used).toBe(stored);
          expect(list.body.total).toBe(stored);
          expect(list.body.workspaceTotal).toBe(all);
        }
      }),
      { numRuns: 6 },
    );
  }, 180_000);
});
