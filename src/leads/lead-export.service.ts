import type { z } from 'zod';
import { coreFields, leadExportColumns, type exportLeadsInput } from '../../schema/leads.ts';
import type { Principal } from '../auth/principal.ts';
import { brandFilter } from '../brands/index.ts';
import { listFields } from './lead-fields.service.ts';
import { checkedCustomFilter, leadListFilter } from './lead-filter.ts';
import { orderFor, sortFor } from './lead-list-page.ts';
import { Lead, type LeadDoc } from './lead.models.ts';

/**
 * Leads read from the store per round trip. A batch lives until its last
 * row is written: a large batch outlives the young-generation collections
 * and piles up in the old generation (bench/export.ts shows the API's
 * memory); small ones die young and memory stays flat.
 */
const batchSize = 100;

type Cell = string | number | null;

function exportRow(doc: LeadDoc, customKeys: string[]): Cell[] {
  return [
    doc._id,
    ...coreFields.map((field) => doc[field] ?? null),
    doc.score ?? null,
    doc.status ?? null,
    doc.email_status ?? null,
    doc.createdAt.toISOString(),
    ...customKeys.map((key) => doc.custom?.[key] ?? null),
  ];
}

/**
 * Every lead the list's filters match, in the list's order (newest first; oldest change first with updated_after),
 * as CSV rows read from one cursor: the columns of leadExportColumns, then
 * one per custom column (by key, in the columns' order).
 */
export async function leadExport(principal: Pick<Principal, 'workspaceId' | 'brandId'>, input: z.infer<typeof exportLeadsInput>) {
  const { workspaceId } = principal;
  const [brand, fields, custom] = await Promise.all([
    brandFilter(principal, input.brand, 'workspace'),
    listFields(workspaceId),
    checkedCustomFilter(workspaceId, input.custom),
  ]);
  const customKeys = fields.map((field) => field.key);
  const filter = leadListFilter(workspaceId, brand, { ...input, custom });
  async function* rows(): AsyncGenerator<Cell[]> {
    const cursor = Lead.find(filter)
      .sort(sortFor(orderFor(input)))
      .lean<LeadDoc[]>()
      .cursor({ batchSize });
    // Leaving the loop early (the client went away) closes the cursor.
    for await (const doc of cursor) yield exportRow(doc as LeadDoc, customKeys);
  }
  return { columns: [...leadExportColumns, ...customKeys], rows: rows() };
}
