import type { z } from 'zod';
import type { scrapeDataInput } from '../../schema/scrape-runs.ts';
import { notFound } from '../errors/app-error.ts';
import { getRun, runData } from './scrape-runs.service.ts';
import { getScraperDoc } from './scraper-lookup.ts';

type Item = Record<string, unknown>;

/** The items of a run's data: its `items`, or the one record a scraper without `items` extracts. */
const itemsOf = (data: unknown): unknown[] =>
  data && typeof data === 'object' && Array.isArray((data as { items?: unknown }).items) ? (data as { items: unknown[] }).items : [data];

/** A CSV cell: numbers as they are, booleans as `true`/`false`, lists and objects as JSON text, no value as empty. */
function cell(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  return value;
}

async function* fileRows(items: unknown[], columns: string[], format: 'csv' | 'jsonl') {
  for (const item of items) {
    if (format === 'jsonl') yield item;
    else yield Object.fromEntries(columns.map((column) => [column, cell((item as Item | null)?.[column])]));
  }
}

/**
 * A run's data as a file: CSV with the scraper's fields as columns, or JSON
 * Lines with one item a line, typed as in the JSON. While the run works the
 * answer is 202 `{ runId, status }`, as for the JSON form; a failed run is
 * 422 run_failed (runData).
 */
export async function runDataFile(workspaceId: string, input: z.infer<typeof scrapeDataInput>, format: 'csv' | 'jsonl') {
  const run = await getRun(workspaceId, input.runId);
  if (run.scraperId !== input.scraperId) throw notFound('Scrape run');
  const { status, data } = await runData(run);
  if (data === undefined) return { status: 202, body: { runId: run._id, status } };
  const columns = Object.keys((await getScraperDoc(workspaceId, run.scraperId)).extract.fields);
  return { name: `scrape-${run._id}`, columns, format, rows: fileRows(itemsOf(data), columns, format) };
}
