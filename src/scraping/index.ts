/** The scraping domain's front door: scrapers and runs for the endpoints and folders built on them, and running a run. */
export { executeRun } from './run-executor.ts';
export { giveUpRun } from './run-lifecycle.ts';
export { getRun, queueRun, requeueStrandedScrapeRuns, runData, startScheduledRun, waitForRunToEnd } from './scrape-runs.service.ts';
export { getScraperDoc } from './scraper-lookup.ts';
export { scraperCountsByFolder, unfileScrapers } from './scrapers.service.ts';
export { runDataFileRoute } from './run-data-files.route.ts';
