import mongoose, { Schema, type Model } from 'mongoose';
import { isDuplicateKey } from './duplicate-key.ts';

/**
 * A turn: one document per thing to take turns on, held by `holder` until
 * `until`. It is taken with one conditional update (free, lapsed, or ours
 * already), which any number of processes may race; a holder that died
 * leaves a turn that lapses by itself. Times are wall-clock on purpose:
 * turns are shared with other processes, whatever clock a test sets.
 */
export interface TurnDoc {
  _id: string;
  holder: string | null;
  until: Date;
}

/** The model of a collection of turns. */
export const turnModel = (name: string, collection: string): Model<TurnDoc> =>
  mongoose.model<TurnDoc>(
    name,
    new Schema<TurnDoc>(
      { _id: { type: String, required: true }, holder: { type: String, default: null }, until: { type: Date, required: true } },
      { versionKey: false },
    ),
    collection,
  );

/** Takes (or keeps) the turn `id` for `holder` for `turnMs`: true when `holder` has it. */
export async function takeTurn(turns: Model<TurnDoc>, id: string, holder: string, turnMs: number): Promise<boolean> {
  const at = Date.now();
  try {
    // Held by another: the filter misses, and the upsert's insert hits the unique _id.
    await turns.updateOne(
      { _id: id, $or: [{ holder }, { until: { $lte: new Date(at) } }] },
      { $set: { holder, until: new Date(at + turnMs) } },
      { upsert: true },
    );
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/** Gives the turn back, if `holder` still has it (one that lapsed and went to another is theirs). */
export async function releaseTurn(turns: Model<TurnDoc>, id: string, holder: string): Promise<void> {
  await turns.updateOne({ _id: id, holder }, { $set: { holder: null, until: new Date(0) } });
}
