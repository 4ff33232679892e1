import { z } from 'zod';
import { exampleId, dateTime, okFlag, uuid } from './common.ts';

const folderName = z.string().trim().min(1).max(120).describe('Display name, 1 to 120 characters, unique in the workspace.');

export const folder = z
  .object({
    id: uuid.describe("The folder's id: pass it as `folder_id` to file a scraper or narrow the scraper list."),
    name: z.string().describe('Display name, unique in the workspace.'),
    scraper_count: z.int().describe('Scrapers filed in the folder.'),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Folder' });
export type FolderOut = z.infer<typeof folder>;

export const createFolderInput = z.strictObject({ name: folderName }).meta({ examples: [{ name: 'Competitors' }] });
export const updateFolderInput = z
  .strictObject({ id: uuid.describe('The folder to rename.'), name: folderName })
  .meta({ examples: [{ id: exampleId, name: 'Competitor shops' }] });
export const folderIdInput = z.object({ id: uuid.describe('The folder.') });
export const folderOutput = z.object({ folder });
export const listFoldersOutput = z.object({ folders: z.array(folder).describe("The workspace's folders by name.") });
export const deleteFolderOutput = z.object({
  ok: okFlag,
  id: uuid,
  scrapers_unfiled: z.int().describe('Scrapers that were in the folder: they stay, filed in no folder.'),
});
