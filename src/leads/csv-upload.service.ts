import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse';
import type { z } from 'zod';
import { importTarget, type ImportTarget, type leadImport, type startImportQuery } from '../../schema/lead-imports.ts';
import type { Principal } from '../auth/principal.ts';
import { now } from '../clock.ts';
import { AppError } from '../errors/app-error.ts';
import { fieldError } from '../errors/field-error.ts';
import { enqueue } from '../jobs/queue.ts';
import { columnTargets } from './csv-columns.ts';
import { toImport } from './csv-import.service.ts';
import { detectDelimiter, firstLineOf, parserOptions, utf8Text } from './csv-reading.ts';
import { leadsImportJob } from './jobs/leads-import.job.ts';
import { LeadImport, LeadImportChunk, type LeadImportDoc } from './lead-import.models.ts';

/** Bytes per stored chunk of a file: small enough to stay off the old generation, large enough to be few writes. */
export const chunkBytes = 256 * 1024;

const unreadable = (problem: string) => new AppError('validation_failed', `body: ${problem}`, { field: 'body' });

/** The `mapping` query parameter: a JSON object of header → target (400 naming `mapping` or the header's entry). */
function parsedMapping(text: string | undefined): Record<string, ImportTarget> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw fieldError({ field: 'mapping', problem: 'must be a JSON object of column header → field' });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw fieldError({ field: 'mapping', problem: 'must be a JSON object of column header → field' });
  const mapping: Record<string, ImportTarget> = {};
  for (const [header, target] of Object.entries(value)) {
    const checked = importTarget.safeParse(target);
    if (!checked.success) throw fieldError({ field: `mapping.${header}`, problem: 'must be a core field, custom.<key> or ignore' });
    mapping[header] = checked.data;
  }
  return mapping;
}

/**
 * Stores a CSV file as it arrives and queues its import: 202 with the import at once. Each chunk of the file is
 * written before the next is read (memory stays flat whatever its size), and read as CSV on the way, so that a
 * file that is empty, not UTF-8 or not CSV (a quote never closed), or whose `mapping` names a header it lacks, is
 * refused (400) before anything is queued. The import's record is written only once its whole file is stored; a
 * request that fails before removes the chunks it wrote, and chunks a dead process left without a record are
 * removed by the retention rule (csv-import.service.ts).
 */
export async function startCsvImport(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  query: z.infer<typeof startImportQuery>,
  body: AsyncIterable<Uint8Array>,
): Promise<z.infer<typeof leadImport>> {
  const mapping = parsedMapping(query.mapping);
  const importId = randomUUID();
  try {
    const file = await storeFile(importId, body);
    const unknown = Object.keys(mapping).filter((header) => !file.header.includes(header));
    if (unknown.length) throw fieldError({ field: `mapping.${unknown[0]}`, problem: 'no column has this header' });
    const targets = columnTargets(file.header, mapping);
    const doc = await LeadImport.create({
      _id: importId,
      workspaceId: principal.workspaceId,
      brandId: principal.brandId,
      name: query.name ?? `Import ${now().toISOString().slice(0, 10)}`,
      delimiter: file.delimiter,
      chunks: file.chunks,
      bytes: file.bytes,
      total_rows: file.rows,
      header: file.header,
      mapping: Object.fromEntries(file.header.map((header, index) => [header, targets[index]!])),
      on_duplicate: query.on_duplicate,
    });
    await enqueue(leadsImportJob, { importId });
    return toImport(doc.toObject() as unknown as LeadImportDoc);
  } catch (error) {
    // Nothing half-written: an import whose job could not be queued is not left `queued` without its file.
    await Promise.all([LeadImportChunk.deleteMany({ importId }), LeadImport.deleteOne({ _id: importId })]);
    throw error;
  }
}

interface StoredFile {
  delimiter: string;
  header: string[];
  rows: number;
  chunks: number;
  bytes: number;
}

/** Writes the file's chunks in order while csv-parse reads it: its separator, header and data rows. */
async function storeFile(importId: string, body: AsyncIterable<Uint8Array>): Promise<StoredFile> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let chunks = 0;
  let bytes = 0;
  const flush = async () => {
    if (!pendingBytes) return;
    const data = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    const n = chunks++;
    await LeadImportChunk.create({ _id: `${importId}:${n}`, importId, n, data, createdAt: now() });
  };
  async function* stored() {
    for await (const piece of body) {
      pending.push(piece);
      pendingBytes += piece.length;
      bytes += piece.length;
      if (pendingBytes >= chunkBytes) await flush();
      yield piece;
    }
    await flush();
  }
  const read = await readCsv(stored());
  if (!bytes || !read.header) throw unreadable('empty: send a CSV file with a header row and at least one data row');
  if (!read.rows) throw unreadable('no data rows after the header row');
  return { ...read, header: read.header, chunks, bytes };
}

/** The separator, header and data-row count of CSV bytes; 400 naming `body` for bytes that are not UTF-8 or not CSV. */
async function readCsv(bytes: AsyncIterable<Uint8Array>) {
  let parser: ReturnType<typeof parse> | undefined;
  let delimiter = ',';
  let header: string[] | undefined;
  let rows = 0;
  let head = '';
  let failure: Error | undefined;
  const feed = async (text: string) => {
    if (!parser) {
      head += text;
      if (/\n/.test(head) || head.length >= 65_536) startParser(head);
      return;
    }
    if (!parser.write(text)) await drained(parser);
  };
  const startParser = (text: string) => {
    delimiter = detectDelimiter(firstLineOf(text));
    parser = parse(parserOptions(delimiter));
    parser.on('error', (error) => (failure ??= error));
    parser.on('data', (record: string[]) => {
      if (header) rows++;
      else header = headerOf(record);
    });
    parser.write(text);
  };
  try {
    for await (const text of utf8Text(bytes)) {
      await feed(text);
      if (failure) throw failure;
    }
    if (!parser && head) startParser(head);
    if (parser) await finished(parser);
    if (failure) throw failure;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unreadable(error instanceof TypeError ? 'not UTF-8 text' : `not CSV: ${(error as Error).message}`);
  }
  return { delimiter, header, rows };
}

/** The parser took what was written (or failed). */
const drained = (parser: ReturnType<typeof parse>) =>
  new Promise<void>((done) => {
    if (parser.destroyed) return done();
    parser.once('drain', done);
    parser.once('close', done);
  });

/** The parser read all the text (or failed: the error is its listener's, and a failed parser is closed). */
const finished = (parser: ReturnType<typeof parse>) =>
  new Promise<void>((done) => {
    if (parser.destroyed) return done();
    parser.once('end', done);
    parser.once('close', done);
    parser.end();
    parser.resume();
  });

/** The header row's names, trimmed; an empty one named by its place (`column_3`). */
export const headerOf = (record: string[]) => record.map((name, index) => name.trim() || `column_${index + 1}`);
