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

/**
 * A batch of increments' place in its writer's sequence: a writer applies
 * its batches one at a time, so a document whose `applied.<writer>` is at
 * least `seq` has this batch's increments (see incrementCounterOnce).
 */
export interface AppliedMark {
  writer: string;
  seq: number;
}

/** The filter passing a document `mark`'s batch was not applied to yet. */
export const notYetApplied = (mark: AppliedMark) => ({
  $or: [{ [`applied.${mark.writer}`]: { $lt: mark.seq } }, { [`applied.${mark.writer}`]: { $exists: false } }],
});

/** The `$set` recording that `mark`'s batch was applied, written with its increments. */
export const appliedSet = (mark: AppliedMark) => ({ [`applied.${mark.writer}`]: mark.seq });

/**
 * incrementCounter at most once for `mark`: the increment and the mark in
 * one conditional write, so a batch applied again after a crash (its
 * writer died partway) changes only the documents it had not reached.
 */
export async function incrementCounterOnce(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<any>,
  id: string,
  inc: Record<string, number>,
  mark: AppliedMark,
): Promise<void> {
  const update = { $inc: inc, $set: appliedSet(mark) };
  try {
    await model.updateOne({ _id: id, ...notYetApplied(mark) }, update, { upsert: true });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    // The document exists: applied already (nothing to do), or created meanwhile by another writer.
    await model.updateOne({ _id: id, ...notYetApplied(mark) }, update);
  }
}
