import type { Model } from 'mongoose';

/** Loads a workspace-owned document by id, or null when it belongs to another workspace or does not exist. */
export async function findOwned<T extends { workspaceId: string }>(
  // Any model of such documents, whatever its hydrated and lean-result types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<T, any, any, any, any, any, any>,
  id: string,
  workspaceId: string,
): Promise<T | null> {
  return (await (model as unknown as Model<T>).findOne({ _id: id, workspaceId }).lean()) as T | null;
}
