import { findOwned } from '../db/find-owned.ts';
import { notFound } from '../errors/app-error.ts';
import { ScraperModel, type ScraperDoc } from './scraper.model.ts';

/** A scraper of the workspace (404 otherwise), for the runs and the endpoints built on it. */
export async function getScraperDoc(workspaceId: string, id: string): Promise<ScraperDoc> {
  const doc = (await findOwned(ScraperModel, id, workspaceId)) as ScraperDoc | null;
  if (!doc) throw notFound('Scraper');
  return doc;
}
