import type { Model } from 'mongoose';
import { isDuplicateKey } from './duplicate-key.ts';
import { inTurn } from './key-lock.ts';

/**
 * Adds `inc` to counter document `id`, creating it (with `onInsert`) when
 * missing. MongoDB applies $inc atomically. FerretDB applies an update as
 * read-then-write, so concurrent increments of one document lose counts
 * (measured: 200 at once left 5); they are serialized per document in the
 * process, on both stores alike (one code path; on MongoDB the wait is one
 * round trip per queued increment). Two upserts racing to create the document: the loser's insert
 * hits the unique _id and is applied again as a plain update.
 */
export async function incrementCounter(
  // Any model of counter documents, whatever its document types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<any>,
  id: string,
  inc: Record<string, number>,
  onInsert: Record<string, unknown> = {},
): Promise<void> {
  await inTurn(`${model.collection.name}:${id}`, async () => {
    try {
      await model.updateOne({ _id: id }, { $inc: inc, ...(Object.keys(onInsert).length && { $setOnInsert: onInsert }) }, { upsert: true });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await model.updateOne({ _id: id }, { $inc: inc });
    }
  });
}
