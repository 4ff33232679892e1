import { v7 as timeOrderedId } from 'uuid';
import type { NewLead } from '../../schema/leads.ts';
import type { ImportTarget } from '../../schema/lead-imports.ts';
import { now } from '../clock.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { checkCustomValue } from './custom-values.ts';
import { rowToLead } from './csv-columns.ts';
import { csvRecords, utf8Text } from './csv-reading.ts';
import { columnsFor, declareImportColumns, type ColumnsByKey } from './lead-fields.service.ts';
import { fillDuplicates } from './lead-import-fill.ts';
import { createLeads, ownLeadsMetAgain } from './lead-import.service.ts';
import { LeadImport, LeadImportChunk, LeadImportRejection, type LeadImportDoc } from './lead-import.models.ts';

/** Rows stored per batch: one insert of up to a thousand leads, in one turn of the plan's cap. */
const batchRows = 1000;
/** Errors an import lists (every rejected row is in its rejected rows' CSV). */
const listedErrors = 100;

interface Rejection {
  row: number;
  column: string | null;
  message: string;
  cells: string[];
}

interface Totals {
  processed_rows: number;
  created: number;
  updated: number;
  duplicates: number;
  rejected: number;
  errors: LeadImportDoc['errors'];
}

/**
 * Carries out a CSV import: its file's chunks read in order through csv-parse, rows mapped to leads (columnTargets,
 * as the upload applied them), stored a batch at a time through the one path that creates leads (createLeads),
 * duplicates skipped or filled in (`on_duplicate`), rows past the plan's cap refused as `lead_limit`. After each
 * batch the counts are recorded; a start after a dead worker skips the rows recorded (a batch stored but not
 * recorded is met again, its leads counted as created by this import, not as duplicates). The file is removed once
 * the import ends.
 */
export async function runCsvImport(importId: string): Promise<void> {
  const before = await LeadImport.findOneAndUpdate(
    { _id: importId, status: { $in: ['queued', 'running'] } },
    { $set: { status: 'running' } },
    { returnDocument: 'before' },
  ).lean<LeadImportDoc>();
  if (!before) return;
  const doc = { ...before, status: 'running' as const };
  // Running already: an earlier start died, and the batch after the last it recorded may be stored (only that one:
  // batches are stored one at a time, each recorded before the next is stored).
  let mayHoldOwnLeads = before.status === 'running';
  const targets = doc.header.map((header) => doc.mapping[header] as ImportTarget);
  const customColumns = doc.header.flatMap((header, index) =>
    targets[index]!.startsWith('custom.') ? [{ key: targets[index]!.slice('custom.'.length), label: header }] : [],
  );
  await declareImportColumns(doc.workspaceId, customColumns);
  const columns = await columnsFor(
    doc.workspaceId,
    customColumns.map((column) => column.key),
  );
  const totals: Totals = {
    processed_rows: doc.processed_rows,
    created: doc.created,
    updated: doc.updated,
    duplicates: doc.duplicates,
    rejected: doc.rejected,
    errors: doc.errors,
  };
  let batch: Array<{ row: number; cells: string[] }> = [];
  let row = 0;
  let headerRead = false;
  // One batch is stored while the next is read: the store's work and the parsing overlap, the batches stay in order.
  let storing: Promise<void> = Promise.resolve();
  const store = async (rows: typeof batch) => {
    await storing;
    storing = storeBatch(doc, targets, columns, rows, totals, mayHoldOwnLeads);
    mayHoldOwnLeads = false;
    storing.catch(() => undefined); // awaited before the next batch or at the end
  };
  for await (const cells of csvRecords(utf8Text(fileChunks(importId)), doc.delimiter)) {
    if (!headerRead) {
      headerRead = true;
      continue;
    }
    row += 1;
    if (row <= doc.processed_rows) continue;
    batch.push({ row, cells });
    if (batch.length === batchRows) {
      await store(batch);
      batch = [];
    }
  }
  if (batch.length) await store(batch);
  await storing;
  await LeadImport.updateOne({ _id: importId }, { $set: { status: 'completed', total_rows: row, finishedAt: now() } });
  await LeadImportChunk.deleteMany({ importId });
}

/** The file's bytes, a stored chunk at a time, in order. */
async function* fileChunks(importId: string): AsyncGenerator<Uint8Array> {
  const cursor = LeadImportChunk.find({ importId }).sort({ n: 1 }).lean().cursor({ batchSize: 2 });
  // Read lean, a Buffer path comes as the driver's Binary.
  for await (const chunk of cursor) yield (chunk.data as unknown as { buffer: Uint8Array }).buffer;
}

async function storeBatch(
  doc: LeadImportDoc,
  targets: ImportTarget[],
  columns: ColumnsByKey,
  rows: Array<{ row: number; cells: string[] }>,
  totals: Totals,
  mayHoldOwnLeads: boolean,
): Promise<void> {
  const rejections: Rejection[] = [];
  const leads: Array<{ row: number; cells: string[]; lead: NewLead; id: string }> = [];
  for (const { row, cells } of rows) {
    const result = checkedRow(doc.header, targets, columns, cells);
    if ('lead' in result) leads.push({ row, cells, lead: result.lead, id: timeOrderedId() });
    else rejections.push({ row, cells, column: result.column, message: result.message });
  }
  const { output, overCap } = leads.length
    ? await createLeads(
        doc.workspaceId,
        { name: doc.name, leads: leads.map((entry) => entry.lead) },
        {
          brandId: doc.brandId,
          search: { id: doc._id, label: doc.name },
          leadIds: leads.map((entry) => entry.id),
          csvImportId: doc._id,
        },
      )
    : { output: { leads: [] }, overCap: [] };
  const created = new Set(output.leads.map((lead) => lead.id));
  const capped = new Set(overCap);
  const met = leads.filter((entry) => !created.has(entry.id) && !capped.has(entry.id));
  // Rows a dead worker stored and did not record are this import's own leads: created by it, not duplicates (a row
  // repeating an earlier row of the file stays a duplicate).
  const own = mayHoldOwnLeads
    ? await ownLeadsMetAgain(
        doc.workspaceId,
        doc._id,
        met.map((entry) => entry.lead),
      )
    : new Set<number>();
  const duplicates = met.filter((_, index) => !own.has(index));
  const createdRows = created.size + own.size;
  const filled =
    doc.on_duplicate === 'update'
      ? await fillDuplicates(
          doc.workspaceId,
          duplicates.map((entry) => entry.lead),
        )
      : [];
  for (const entry of leads.filter((e) => capped.has(e.id)))
    rejections.push({ row: entry.row, cells: entry.cells, column: null, message: "lead_limit: the plan's lead cap is reached" });
  rejections.sort((a, b) => a.row - b.row);
  await storeRejections(doc._id, rejections);

  const updated = filled.filter(Boolean).length;
  totals.processed_rows += rows.length;
  totals.created += createdRows;
  totals.updated += updated;
  totals.duplicates += duplicates.length - updated;
  totals.rejected += rejections.length;
  const room = listedErrors - totals.errors.length;
  if (room > 0) totals.errors.push(...rejections.slice(0, room).map(({ row, column, message }) => ({ row, column, message })));
  await LeadImport.updateOne({ _id: doc._id }, { $set: totals });
}

/** A row as a lead, its custom values checked against their declared columns' types (normalized as stored). */
function checkedRow(header: string[], targets: ImportTarget[], columns: ColumnsByKey, cells: string[]) {
  const result = rowToLead(header, targets, cells);
  if (!('lead' in result) || !result.lead.custom) return result;
  const custom: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(result.lead.custom)) {
    const checked = checkCustomValue(columns.get(key), value);
    if ('problem' in checked) {
      const column = header[targets.indexOf(`custom.${key}` as ImportTarget)] ?? null;
      return { column, message: `not a valid value: ${checked.problem}` };
    }
    custom[key] = checked.value;
  }
  return { lead: { ...result.lead, custom } };
}

async function storeRejections(importId: string, rejections: Rejection[]): Promise<void> {
  if (!rejections.length) return;
  const docs = rejections.map(({ row, cells, column, message }) => ({
    _id: `${importId}:${row}`,
    importId,
    row,
    cells,
    error: column ? `${column}: ${message}` : message,
  }));
  // A batch met again (its worker died before recording it) finds its rejections stored.
  await LeadImportRejection.insertMany(docs, { ordered: false }).catch((error: unknown) => {
    if (!isDuplicateKey(error)) throw error;
  });
}
