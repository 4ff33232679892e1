import type { Model } from 'mongoose';
import { isDuplicateKey } from './duplicate-key.ts';

/**
 * Adds `inc` to counter document `id`, creating it (with `onInsert`) when
 * missing: one atomic upsert. Two upserts racing to create the document on
 * MongoDB: the loser's insert hits the unique _id and is applied again as a
 * plain update.
 */
export async function incrementCounter(
  // Any model of counter documents, whatever its document types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<any>,
  id: string,
  inc: Record<string, number>,
  onInsert: Record<string, unknown> = {},
): Promise<void> {
  try {
    await model.updateOne({ _id: id }, { $inc: inc, ...(Object.keys(onInsert).length && { $setOnInsert: onInsert }) }, { upsert: true });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    await model.updateOne({ _id: id }, { $inc: inc });
  }
}
