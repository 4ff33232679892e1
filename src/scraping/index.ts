/**
 * The scraping domain's front door: scrapers and runs for the endpoints and folders built on them. Running a run is
 * its job handler's (jobs/), which only the worker loads: the crawlers (Crawlee, Playwright) stay out of the API.
 */
export { getRun, queueRun, requeueStrandedScrapeRuns, runData, startScheduledRun, waitForRunToEnd } from './scrape-runs.service.ts';
export { getScraperDoc } from './scraper-lookup.ts';
export { scraperCountsByFolder, unfileScrapers } from './scrapers.service.ts';
export { runDataFileRoute } from './run-data-files.route.ts';
