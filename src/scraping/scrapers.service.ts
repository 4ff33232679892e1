import type { z } from 'zod';
import type { createScraperInput, ExtractRules, Scraper, updateScraperInput } from '../../schema/scrapers.ts';
import { findOwned } from '../db/find-owned.ts';
import { endpointSlugsUsingScraper } from '../endpoints/endpoints.service.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { deleteScraperRuns } from './scrape-runs.service.ts';
import { assertValidSelectors, deriveOutputSchema } from './extract-rules.ts';
import { compileJsonSchema } from '../json-schema/json-schema.ts';
import { ScraperModel, type ScraperDoc } from './scraper.model.ts';

export function toScraper(doc: ScraperDoc): Scraper {
  return {
    id: doc._id,
    name: doc.name,
    engine: doc.engine,
    extract: doc.extract,
    follow: doc.follow ?? null,
    output_schema: JSON.parse(doc.outputSchemaJson) as Record<string, unknown>,
    respect_robots: doc.respectRobots,
    insecure_tls: doc.insecureTls ?? false,
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}

/** The schema to store: the client's (checked to compile) or one derived from `extract`. */
function outputSchemaFor(extract: ExtractRules, given: Record<string, unknown> | null | undefined) {
  if (!given) return { outputSchemaJson: JSON.stringify(deriveOutputSchema(extract)), customSchema: false };
  compileJsonSchema(given, 'output_schema');
  return { outputSchemaJson: JSON.stringify(given), customSchema: true };
}

export async function createScraper(workspaceId: string, input: z.infer<typeof createScraperInput>): Promise<Scraper> {
  assertValidSelectors(input.extract, input.follow);
  const doc = await ScraperModel.create({
    workspaceId,
    name: input.name,
    engine: input.engine,
    extract: input.extract,
    follow: input.follow ?? null,
    respectRobots: input.respect_robots,
    insecureTls: input.insecure_tls,
    ...outputSchemaFor(input.extract, input.output_schema),
  });
  return toScraper(doc.toObject() as ScraperDoc);
}

export async function getScraperDoc(workspaceId: string, id: string): Promise<ScraperDoc> {
  const doc = (await findOwned(ScraperModel, id, workspaceId)) as ScraperDoc | null;
  if (!doc) throw notFound('Scraper');
  return doc;
}

export async function listScrapers(workspaceId: string): Promise<Scraper[]> {
  const docs = await ScraperModel.find({ workspaceId }).sort({ createdAt: -1, _id: 1 }).lean<ScraperDoc[]>();
  return docs.map(toScraper);
}

export async function updateScraper(workspaceId: string, input: z.infer<typeof updateScraperInput>): Promise<Scraper> {
  const current = await getScraperDoc(workspaceId, input.id);
  const extract = input.extract ?? current.extract;
  const follow = input.follow === undefined ? current.follow : input.follow;
  assertValidSelectors(extract, follow);
  const changes: Partial<ScraperDoc> = { extract, follow };
  if (input.name !== undefined) changes.name = input.name;
  if (input.engine !== undefined) changes.engine = input.engine;
  if (input.respect_robots !== undefined) changes.respectRobots = input.respect_robots;
  if (input.insecure_tls !== undefined) changes.insecureTls = input.insecure_tls;
  if (input.output_schema !== undefined) Object.assign(changes, outputSchemaFor(extract, input.output_schema));
  else if (input.extract && !current.customSchema) Object.assign(changes, outputSchemaFor(extract, null));
  const updated = await ScraperModel.findByIdAndUpdate(current._id, { $set: changes }, { returnDocument: 'after' }).lean<ScraperDoc>();
  return toScraper(updated!);
}

/**
 * Deletes a scraper with its runs and their results. A scraper that
 * published endpoints use is refused with 409 naming them: they would
 * point at nothing.
 */
export async function deleteScraper(workspaceId: string, id: string): Promise<{ runsDeleted: number }> {
  const doc = await getScraperDoc(workspaceId, id);
  const slugs = await endpointSlugsUsingScraper(workspaceId, doc._id);
  if (slugs.length) {
    throw new AppError('conflict', `The scraper is used by published endpoints (${slugs.join(', ')}): delete them or point them at another scraper first`, { endpoints: slugs });
  }
  // Runs first: a delete that fails halfway can be sent again, and finds the scraper still there.
  const runsDeleted = await deleteScraperRuns(workspaceId, doc._id);
  await ScraperModel.deleteOne({ _id: doc._id });
  return { runsDeleted };
}
