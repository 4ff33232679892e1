import type { Model } from 'mongoose';

/**
 * Loads a workspace-owned document by id, or null when it belongs to
 * another workspace. Filtering on `_id` alone is what FerretDB's SQLite
 * backend can answer from its primary key (any other filter is a scan),
 * and it is an index lookup on MongoDB; ownership is checked afterwards.
 */
export async function findOwned<T extends { workspaceId: string }>(
  // Any model of such documents, whatever its hydrated and lean-result types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<T, any, any, any, any, any, any>,
  id: string,
  workspaceId: string,
): Promise<T | null> {
  const doc = (await (model as unknown as Model<T>).findById(id).lean()) as T | null;
  return doc && doc.workspaceId === workspaceId ? doc : null;
}
