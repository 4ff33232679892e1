import type { Collection, Filter } from 'mongodb';
import type { Model } from 'mongoose';
import { now } from '../clock.ts';

/**
 * Many `updateOne` statements of `$set`s by string id, in one command
 * through the driver, each `$set` with the updatedAt mongoose would add (a
 * schema with `timestamps: true`): for the sending engine's writes of one
 * statement per message, whose values our code builds with the schema's
 * types, so mongoose's casting of each statement is work done twice on a
 * hot path. Ordered, as mongoose's bulkWrite is.
 */
export async function setEach(
  model: Pick<Model<unknown>, 'schema' | 'collection'>,
  updates: Array<{ filter: Filter<{ _id: string }>; set: Record<string, unknown> }>,
): Promise<{ modifiedCount: number }> {
  // As mongoose's bulkWrite answers nothing to do (the driver would throw).
  if (!updates.length) return { modifiedCount: 0 };
  const stamp = model.schema.get('timestamps') === true ? { updatedAt: now() } : {};
  // The ids are strings (the driver's default type for _id is ObjectId).
  return (model.collection as unknown as Collection<{ _id: string }>).bulkWrite(
    updates.map(({ filter, set }) => ({ updateOne: { filter, update: { $set: { ...set, ...stamp } } } })),
  );
}

/**
 * setEach as a group commit: an update given while none of this model's is under way here is written at the end
 * of the event loop's turn, with every other given in that turn (answers read from several sockets in one turn
 * come in separate callbacks: a microtask would write only the first); updates given while one is under way wait
 * for it and are then written together. Each caller's promise settles once its own update was written: writes
 * that come one by one (the sending engine's outcomes, as each SMTP server answers) cost a command per group.
 */
export function groupedSetEach(model: Parameters<typeof setEach>[0]): (update: Parameters<typeof setEach>[1][number]) => Promise<void> {
  let waiting: Array<{ update: Parameters<typeof setEach>[1][number]; written: () => void; failed: (error: unknown) => void }> = [];
  let underWay = false;
  const flush = async () => {
    const group = waiting;
    waiting = [];
    underWay = true;
    try {
      await setEach(
        model,
        group.map(({ update }) => update),
      );
      for (const { written } of group) written();
    } catch (error) {
      for (const { failed } of group) failed(error);
    } finally {
      underWay = false;
      if (waiting.length) setImmediate(flush);
    }
  };
  return (update) =>
    new Promise((written, failed) => {
      if (!waiting.length && !underWay) setImmediate(flush);
      waiting.push({ update, written, failed });
    });
}
