import { endpointSlugsUsingScraper } from '../endpoints/index.ts';
import { AppError } from '../errors/app-error.ts';
import { deleteScraperRuns } from './scrape-runs.service.ts';
import { getScraperDoc } from './scraper-lookup.ts';
import { ScraperModel } from './scraper.model.ts';

// Apart from scrapers.service.ts: the endpoints domain, which asks that service for scrapers and runs, is asked
// here whether a scraper is in use, and the scraping domain's public modules must not reach back up to it.

/**
 * Deletes a scraper with its runs and their results. A scraper that
 * published endpoints use is refused with 409 naming them: they would
 * point at nothing.
 */
export async function deleteScraper(workspaceId: string, id: string): Promise<{ runsDeleted: number }> {
  const doc = await getScraperDoc(workspaceId, id);
  const slugs = await endpointSlugsUsingScraper(workspaceId, doc._id);
  if (slugs.length) {
    throw new AppError(
      'conflict',
      `The scraper is used by published endpoints (${slugs.join(', ')}): delete them or point them at another scraper first`,
      { endpoints: slugs },
    );
  }
  // Runs first: a delete that fails halfway can be sent again, and finds the scraper still there.
  const runsDeleted = await deleteScraperRuns(workspaceId, doc._id);
  await ScraperModel.deleteOne({ _id: doc._id });
  return { runsDeleted };
}
