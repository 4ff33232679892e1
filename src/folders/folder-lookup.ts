import { findOwned } from '../db/find-owned.ts';
import { notFound } from '../errors/app-error.ts';
import { Folder, type FolderDoc } from './folder.model.ts';

/** The workspace's folder (404 naming `field` otherwise), for the scrapers filed in it. */
export async function ownedFolder(workspaceId: string, id: string, field?: string): Promise<FolderDoc> {
  const doc = (await findOwned(Folder, id, workspaceId)) as FolderDoc | null;
  if (!doc) throw notFound('Folder', field);
  return doc;
}

/** The folder id when the folder is the workspace's; 404 naming `field` otherwise (another workspace's folder is no folder). */
export async function assertFolderInWorkspace(workspaceId: string, id: string, field = 'folder_id'): Promise<string> {
  return (await ownedFolder(workspaceId, id, field))._id;
}

export async function folderExists(workspaceId: string, id: string): Promise<boolean> {
  return (await findOwned(Folder, id, workspaceId)) !== null;
}
