import type { Model } from 'mongoose';

/**
 * Loads a workspace-owned document by id, or null when it belongs to
 * another workspace. Filtering on `_id` alone is what FerretDB's SQLite
 * backend can answer from its primary key (any other filter is a scan),
 * and it is an index lookup on MongoDB; ownership is checked afterwards.
 */
export async function findOwned<T extends { workspaceId: string }>(model: Model<T>, id: string, workspaceId: string): Promise<T | null> {
  const doc = await model.findById(id).lean<T>();
  return doc && doc.workspaceId === workspaceId ? doc : null;
}
