import type { z } from 'zod';
import type { leadImport } from '../../schema/lead-imports.ts';
import { now, nowMs } from '../clock.ts';
import { findOwned } from '../db/find-owned.ts';
import { defineRetentionRule } from '../db/retention.ts';
import { notFound } from '../errors/app-error.ts';
import { enqueueOnceAt, strandedBefore } from '../jobs/queue.ts';
import { leadsImportJob } from './jobs/leads-import.job.ts';
import { LeadImport, LeadImportChunk, LeadImportRejection, type LeadImportDoc } from './lead-import.models.ts';
import { containsTextAnyCase } from '../db/exact-text.ts';

type ImportOut = z.infer<typeof leadImport>;

export const toImport = (doc: LeadImportDoc): ImportOut => ({
  id: doc._id,
  name: doc.name,
  status: doc.status,
  total_rows: doc.total_rows,
  processed_rows: doc.processed_rows,
  created: doc.created,
  updated: doc.updated,
  duplicates: doc.duplicates,
  rejected: doc.rejected,
  errors: doc.errors.map(({ row, column, message }) => ({ row, column: column ?? null, message })),
  mapping: doc.mapping,
  on_duplicate: doc.on_duplicate,
  error: doc.error ?? null,
  created_at: doc.createdAt.toISOString(),
  finished_at: doc.finishedAt ? doc.finishedAt.toISOString() : null,
});

export async function getCsvImport(workspaceId: string, id: string): Promise<ImportOut> {
  const doc = (await findOwned(LeadImport, id, workspaceId)) as LeadImportDoc | null;
  if (!doc) throw notFound('Import');
  return toImport(doc);
}

/** The workspace's last 100 imports, newest first. */
export async function listCsvImports(workspaceId: string): Promise<ImportOut[]> {
  const docs = await LeadImport.find({ workspaceId }).sort({ createdAt: -1, _id: -1 }).limit(100).lean<LeadImportDoc[]>();
  return docs.map(toImport);
}

/** Rejections read from the store per round trip. */
const batchSize = 200;

/**
 * The import's rejected rows as CSV rows, in file order: its header, then `error`; each row's cells as read (the
 * download route neutralises formulas). 404 for another workspace's import or none.
 */
export async function rejectedRows(workspaceId: string, id: string) {
  const doc = (await findOwned(LeadImport, id, workspaceId)) as LeadImportDoc | null;
  if (!doc) throw notFound('Import');
  const width = doc.header.length;
  async function* rows(): AsyncGenerator<string[]> {
    const cursor = LeadImportRejection.find({ importId: id }).sort({ row: 1 }).lean().cursor({ batchSize });
    for await (const rejection of cursor) {
      const cells = rejection.cells.slice(0, width);
      while (cells.length < width) cells.push('');
      yield [...cells, rejection.error];
    }
  }
  return { columns: [...doc.header, 'error'], rows: rows() };
}

/** Marks an import failed (its job given up), and removes its file. */
export async function failCsvImport(id: string, error: string): Promise<void> {
  await LeadImport.updateOne({ _id: id, status: { $in: ['queued', 'running'] } }, { $set: { status: 'failed', error, finishedAt: now() } });
  await LeadImportChunk.deleteMany({ importId: id });
}

/** Queues again the imports whose request died between storing the import and queuing its job (once each). */
export async function requeueStrandedCsvImports(): Promise<void> {
  const stranded = await LeadImport.find({ status: 'queued', updatedAt: { $lt: strandedBefore() } }, { _id: 1 }).lean<
    Array<{ _id: string }>
  >();
  for (const { _id } of stranded) await enqueueOnceAt(leadsImportJob, new Date(), { importId: _id }, ['importId']);
}

const dayMs = 86_400_000;

/**
 * Files no import will read: chunks older than a day whose import is not queued or running (a request that died
 * mid-upload left them without a record; an import's own are removed when it ends). Rejected rows are kept with
 * their import.
 */
async function pruneImportFiles(): Promise<number> {
  const old = await LeadImportChunk.distinct('importId', { createdAt: { $lt: new Date(nowMs() - dayMs) } });
  if (!old.length) return 0;
  const active = new Set(
    (await LeadImport.find({ _id: { $in: old }, status: { $in: ['queued', 'running'] } }, { _id: 1 }).lean()).map((doc) => doc._id),
  );
  const orphaned = old.filter((id) => !active.has(id));
  if (!orphaned.length) return 0;
  return (await LeadImportChunk.deleteMany({ importId: { $in: orphaned } })).deletedCount;
}

export const csvImportFileRetention = defineRetentionRule({
  records: 'CSV import files left by a failed upload',
  everyMs: 60 * 60_000,
  prune: pruneImportFiles,
});

/** Rejected rows of the workspace's imports whose cells hold an address (an erasure): deleted, and how many. */
export async function eraseRejectedRowsNaming(workspaceId: string, address: string): Promise<number> {
  const imports = await LeadImport.find({ workspaceId }, { _id: 1 }).lean<Array<{ _id: string }>>();
  if (!imports.length) return 0;
  const { deletedCount } = await LeadImportRejection.deleteMany({
    importId: { $in: imports.map(({ _id }) => _id) },
    cells: containsTextAnyCase(address),
  });
  return deletedCount;
}
