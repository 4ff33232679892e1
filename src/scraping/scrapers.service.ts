import type { z } from 'zod';
import type { CrawlRules, createScraperInput, ExtractRules, Scraper, updateScraperInput } from '../../schema/scrapers.ts';
import { assertFolderInWorkspace, folderExists } from '../folders/index.ts';
import { assertValidSelectors, deriveOutputSchema } from './extract-rules.ts';
import { compileJsonSchema } from '../json-schema/json-schema.ts';
import { getScraperDoc } from './scraper-lookup.ts';
import { ScraperModel, type ScraperDoc } from './scraper.model.ts';

export function toScraper(doc: ScraperDoc): Scraper {
  return {
    id: doc._id,
    name: doc.name,
    engine: doc.engine,
    extract: doc.extract,
    follow: doc.follow ?? null,
    crawl: doc.crawl ?? null,
    output_schema: JSON.parse(doc.outputSchemaJson) as Record<string, unknown>,
    respect_robots: doc.respectRobots,
    insecure_tls: doc.insecureTls ?? false,
    folder_id: doc.folderId ?? null,
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}

/** The schema to store: the client's (checked to compile) or one derived from `extract` (and whether it crawls). */
function outputSchemaFor(extract: ExtractRules, crawl: CrawlRules | null | undefined, given: Record<string, unknown> | null | undefined) {
  if (!given) return { outputSchemaJson: JSON.stringify(deriveOutputSchema(extract, Boolean(crawl))), customSchema: false };
  compileJsonSchema(given, 'output_schema');
  return { outputSchemaJson: JSON.stringify(given), customSchema: true };
}

export async function createScraper(workspaceId: string, input: z.infer<typeof createScraperInput>): Promise<Scraper> {
  assertValidSelectors(input.extract, input.follow, input.crawl);
  const folderId = input.folder_id ? await assertFolderInWorkspace(workspaceId, input.folder_id) : null;
  const doc = await ScraperModel.create({
    workspaceId,
    name: input.name,
    engine: input.engine,
    extract: input.extract,
    follow: input.follow ?? null,
    crawl: input.crawl ?? null,
    respectRobots: input.respect_robots,
    insecureTls: input.insecure_tls,
    folderId,
    ...outputSchemaFor(input.extract, input.crawl, input.output_schema),
  });
  return toScraper(await unfiledIfFolderGone(doc.toObject() as ScraperDoc));
}

/**
 * A scraper filed while its folder was being deleted: deleteFolder removes
 * the folder, then unfiles its scrapers, so a scraper written after that
 * is caught by checking the folder again once written, and filed nowhere.
 */
async function unfiledIfFolderGone(doc: ScraperDoc): Promise<ScraperDoc> {
  if (!doc.folderId || (await folderExists(doc.workspaceId, doc.folderId))) return doc;
  await ScraperModel.updateOne({ _id: doc._id, folderId: doc.folderId }, { $set: { folderId: null } });
  return { ...doc, folderId: null };
}

/** The workspace's scrapers, or those filed in `folderId` (404 naming folder_id when it is not the workspace's folder). */
export async function listScrapers(workspaceId: string, folderId?: string): Promise<Scraper[]> {
  if (folderId) await assertFolderInWorkspace(workspaceId, folderId);
  const docs = await ScraperModel.find({ workspaceId, ...(folderId && { folderId }) })
    .sort({ createdAt: -1, _id: 1 })
    .lean<ScraperDoc[]>();
  return docs.map(toScraper);
}

export async function updateScraper(workspaceId: string, input: z.infer<typeof updateScraperInput>): Promise<Scraper> {
  const current = await getScraperDoc(workspaceId, input.id);
  const extract = input.extract ?? current.extract;
  const follow = input.follow === undefined ? current.follow : input.follow;
  const crawl = input.crawl === undefined ? current.crawl : input.crawl;
  assertValidSelectors(extract, follow, crawl);
  const changes: Partial<ScraperDoc> = { extract, follow, crawl };
  if (input.name !== undefined) changes.name = input.name;
  if (input.engine !== undefined) changes.engine = input.engine;
  if (input.respect_robots !== undefined) changes.respectRobots = input.respect_robots;
  if (input.insecure_tls !== undefined) changes.insecureTls = input.insecure_tls;
  if (input.folder_id !== undefined) changes.folderId = input.folder_id && (await assertFolderInWorkspace(workspaceId, input.folder_id));
  if (input.output_schema !== undefined) Object.assign(changes, outputSchemaFor(extract, crawl, input.output_schema));
  else if ((input.extract || input.crawl !== undefined) && !current.customSchema)
    Object.assign(changes, outputSchemaFor(extract, crawl, null));
  const updated = await ScraperModel.findByIdAndUpdate(current._id, { $set: changes }, { returnDocument: 'after' }).lean<ScraperDoc>();
  return toScraper(changes.folderId ? await unfiledIfFolderGone(updated!) : updated!);
}

/** How many scrapers each folder holds, by folder id (a workspace has few scrapers: counted from their folder ids alone). */
export async function scraperCountsByFolder(workspaceId: string): Promise<Map<string, number>> {
  const docs = await ScraperModel.find({ workspaceId, folderId: { $ne: null } }, { folderId: 1 }).lean<Array<{ folderId: string }>>();
  const counts = new Map<string, number>();
  for (const { folderId } of docs) counts.set(folderId, (counts.get(folderId) ?? 0) + 1);
  return counts;
}

/** Files a folder's scrapers in no folder (the folder is being deleted); answers how many there were. */
export async function unfileScrapers(workspaceId: string, folderId: string): Promise<number> {
  return (await ScraperModel.updateMany({ workspaceId, folderId }, { $set: { folderId: null } })).modifiedCount;
}
