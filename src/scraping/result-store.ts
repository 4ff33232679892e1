import { ScrapeResultChunk } from './scrape-run.model.ts';

const chunkChars = 1_000_000;
const chunkId = (runId: string, index: number) => `${runId}:${index}`;

/** Writes the result as JSON text chunks; returns how many. Written before the run is marked completed. */
export async function saveResult(runId: string, data: unknown): Promise<number> {
  const text = JSON.stringify(data);
  const chunks = Math.max(1, Math.ceil(text.length / chunkChars));
  for (let index = 0; index < chunks; index++) {
    const part = text.slice(index * chunkChars, (index + 1) * chunkChars);
    await ScrapeResultChunk.updateOne({ _id: chunkId(runId, index) }, { $set: { text: part } }, { upsert: true });
  }
  return chunks;
}

export async function loadResult(runId: string, chunks: number): Promise<unknown> {
  let text = '';
  for (let index = 0; index < chunks; index++) {
    const chunk = await ScrapeResultChunk.findById(chunkId(runId, index)).lean();
    if (!chunk) throw new Error(`result chunk ${index} of run ${runId} is missing`);
    text += chunk.text;
  }
  return JSON.parse(text);
}
