import type { WriteConcernSettings } from 'mongodb';
import { isDuplicateKey } from './duplicate-key.ts';
import { insertLean } from './lean-insert.ts';

/**
 * Inserts documents whose `_id` may be stored already (ids derived from what they record, so work done twice stores
 * each once), with one insert for all (insertLean: as mongoose would store them, without a mongoose document each):
 * answers the ids this call stored; the others were there before, by anyone. `writeConcern`: see journaled.ts.
 */
export async function insertNew<Doc extends { _id: string }>(
  model: Parameters<typeof insertLean>[0],
  docs: Doc[],
  writeConcern?: WriteConcernSettings,
): Promise<Set<string>> {
  if (!docs.length) return new Set();
  try {
    await insertLean(model, docs, writeConcern);
    return new Set(docs.map((doc) => doc._id));
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    const failed = new Set(((error as { writeErrors?: Array<{ index: number }> }).writeErrors ?? []).map(({ index }) => index));
    return new Set(docs.filter((_, index) => !failed.has(index)).map((doc) => doc._id));
  }
}

/**
 * A group commit: a document given while no insert of this collection is under way here is inserted at once (once
 * the callers running now have given theirs: concurrent emitters resumed together go together); documents given
 * while one is under way wait for it and are then inserted together, with insertNew. Each caller learns whether its
 * document was stored now (true) or was there before.
 */
export function groupedInsert<Doc extends { _id: string }>(
  collection: Parameters<typeof insertNew<Doc>>[0],
): (doc: Doc) => Promise<boolean> {
  let waiting: Array<{ doc: Doc; stored: (now: boolean) => void; failed: (error: unknown) => void }> = [];
  let underWay = false;
  const flush = async () => {
    const group = waiting;
    waiting = [];
    underWay = true;
    try {
      const inserted = await insertNew(
        collection,
        group.map(({ doc }) => doc),
      );
      for (const { doc, stored } of group) stored(inserted.has(doc._id));
    } catch (error) {
      for (const { failed } of group) failed(error);
    } finally {
      underWay = false;
      if (waiting.length) process.nextTick(flush);
    }
  };
  return (doc) =>
    new Promise((stored, failed) => {
      if (!waiting.length && !underWay) process.nextTick(flush);
      waiting.push({ doc, stored, failed });
    });
}
