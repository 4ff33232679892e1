import type { Model, QueryFilter, UpdateQuery } from 'mongoose';
import siftModule from 'sift';
import { storeIsFerretDb } from './connection.ts';

// sift is CommonJS whose module object is the tester itself; its types describe an ES default export.
const sift = siftModule as unknown as (query: Record<string, unknown>) => (doc: unknown) => boolean;

/**
 * Applies `update` to document `id` only if it matches `condition`, and
 * returns the updated document (null when it does not match or does not
 * exist). On MongoDB this is one atomic conditional update. FerretDB would
 * answer any filter beyond `_id` by scanning the whole collection, and does
 * not compare-and-swap anyway, so there the document is read by `_id`, the
 * condition checked here (sift, MongoDB's query semantics), and the update
 * written by `_id`; callers serialize writers with withKeyLock.
 */
export async function updateIfMatches<T>(
  // Any model of such documents, whatever its hydrated and lean-result types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  anyModel: Model<T, any, any, any, any, any, any>,
  id: string,
  condition: QueryFilter<T>,
  update: UpdateQuery<T>,
): Promise<T | null> {
  const model = anyModel as unknown as Model<T>;
  if (!storeIsFerretDb()) {
    return (await model.findOneAndUpdate({ _id: id, ...condition } as QueryFilter<T>, update, { returnDocument: 'after' }).lean()) as T | null;
  }
  const current = await model.findById(id).lean();
  if (!current || !sift(condition as Record<string, unknown>)(current)) return null;
  return (await model.findByIdAndUpdate(id, update, { returnDocument: 'after' }).lean()) as T | null;
}
