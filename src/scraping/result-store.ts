import { randomUUID } from 'node:crypto';
import { ScrapeResultChunk } from './scrape-run.model.ts';

const chunkChars = 1_000_000;
const chunkIds = (resultKey: string, chunks: number) => Array.from({ length: chunks }, (_, index) => `${resultKey}:${index}`);

/**
 * Writes the result as JSON text chunks, by insert only, under a key of its
 * own (an attempt that crashed leaves its chunks unreferenced rather than
 * half-overwritten); the run records the key when it is marked completed.
 */
export async function saveResult(runId: string, data: unknown): Promise<{ resultKey: string; resultChunks: number }> {
  const text = JSON.stringify(data);
  const resultKey = `${runId}:${randomUUID().slice(0, 8)}`;
  const ids = chunkIds(resultKey, Math.max(1, Math.ceil(text.length / chunkChars)));
  await ScrapeResultChunk.insertMany(ids.map((_id, index) => ({ _id, text: text.slice(index * chunkChars, (index + 1) * chunkChars) })));
  return { resultKey, resultChunks: ids.length };
}

export async function loadResult(resultKey: string, chunks: number): Promise<unknown> {
  let text = '';
  for (const id of chunkIds(resultKey, chunks)) {
    const chunk = await ScrapeResultChunk.findById(id).lean();
    if (!chunk) throw new Error(`result chunk ${id} is missing`);
    text += chunk.text;
  }
  return JSON.parse(text);
}

/** One delete per chunk, by primary key: an `$in` may read the whole collection. */
export async function deleteResult(resultKey: string, chunks: number): Promise<void> {
  for (const _id of chunkIds(resultKey, chunks)) await ScrapeResultChunk.deleteOne({ _id });
}
