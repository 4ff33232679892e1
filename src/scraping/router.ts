import { router } from '../trpc/init.ts';
import { cancelScrapeRunProcedure } from './cancel-scrape-run.ts';
import { createScraperProcedure } from './create-scraper.ts';
import { deleteScraperProcedure } from './delete-scraper.ts';
import { getScrapeDataProcedure } from './get-scrape-data.ts';
import { getScrapeRunProcedure } from './get-scrape-run.ts';
import { getScraperProcedure } from './get-scraper.ts';
import { listScraperRunsProcedure } from './list-scraper-runs.ts';
import { listScrapersProcedure } from './list-scrapers.ts';
import { startScrapeProcedure } from './start-scrape.ts';
import { updateScraperProcedure } from './update-scraper.ts';

export const scrapersRouter = router({
  create: createScraperProcedure,
  list: listScrapersProcedure,
  get: getScraperProcedure,
  update: updateScraperProcedure,
  delete: deleteScraperProcedure,
  start: startScrapeProcedure,
  run: getScrapeRunProcedure,
  runs: listScraperRunsProcedure,
  cancel: cancelScrapeRunProcedure,
  data: getScrapeDataProcedure,
});
