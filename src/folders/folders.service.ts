import type { FolderOut } from '../../schema/folders.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { scraperCountsByFolder, unfileScrapers } from '../scraping/index.ts';
import { ownedFolder } from './folder-lookup.ts';
import { Folder, type FolderDoc } from './folder.model.ts';

const toFolder = (doc: FolderDoc, scraperCount: number): FolderOut => ({
  id: doc._id,
  name: doc.name,
  scraper_count: scraperCount,
  created_at: doc.createdAt.toISOString(),
  updated_at: doc.updatedAt.toISOString(),
});

/** The unique index on (workspace, name) keeps names unique, races included; its refusal becomes a 409 naming the field. */
const nameConflict = (error: unknown, name: string) =>
  isDuplicateKey(error) ? new AppError('conflict', `name: a folder named "${name}" already exists`, { field: 'name' }) : error;

export async function createFolder(workspaceId: string, name: string): Promise<FolderOut> {
  const doc = await Folder.create({ workspaceId, name }).catch((error: unknown) => {
    throw nameConflict(error, name);
  });
  return toFolder(doc.toObject(), 0);
}

export async function listFolders(workspaceId: string): Promise<FolderOut[]> {
  const [docs, counts] = await Promise.all([
    Folder.find({ workspaceId }).sort({ name: 1, _id: 1 }).lean<FolderDoc[]>(),
    scraperCountsByFolder(workspaceId),
  ]);
  return docs.map((doc) => toFolder(doc, counts.get(doc._id) ?? 0));
}

export async function renameFolder(workspaceId: string, id: string, name: string): Promise<FolderOut> {
  const current = await ownedFolder(workspaceId, id);
  const updated = await Folder.findOneAndUpdate({ _id: current._id, workspaceId }, { $set: { name } }, { returnDocument: 'after' })
    .lean<FolderDoc>()
    .catch((error: unknown) => {
      throw nameConflict(error, name);
    });
  if (!updated) throw notFound('Folder');
  return toFolder(updated, (await scraperCountsByFolder(workspaceId)).get(updated._id) ?? 0);
}

/** Deletes a folder; its scrapers stay, filed in no folder. */
export async function deleteFolder(workspaceId: string, id: string): Promise<{ scrapersUnfiled: number }> {
  const doc = await ownedFolder(workspaceId, id);
  // The folder goes first, so no scraper can be filed in it after its scrapers were unfiled.
  await Folder.deleteOne({ _id: doc._id, workspaceId });
  return { scrapersUnfiled: await unfileScrapers(workspaceId, doc._id) };
}
