import { crawlBrowser } from '../../scrapers/browser-crawl.ts';
import { chromiumProblem } from '../../scrapers/chromium.ts';
import type { CrawlOptions, CrawlResult } from '../../scrapers/crawl-types.ts';
import { createHostSlots } from '../net/host-slots.ts';
import { crawlHttp } from '../../scrapers/http-crawl.ts';
import { settings } from '../config.ts';
import { closeUsage, debitCredits, UsageAccountClosedError } from '../credits/index.ts';
import { AppError } from '../errors/app-error.ts';
import { compileJsonSchema, describeSchemaErrors } from '../json-schema/json-schema.ts';
import { scrapePages } from '../metrics/metrics.ts';
import { addressPolicy } from '../net/address-policy.ts';
import { tlsTrust } from '../net/tls-trust.ts';
import { creditsPerPage } from './pricing.ts';
import { saveResult } from './result-store.ts';
import { ScrapeRun, type ScrapeRunDoc } from './scrape-run.model.ts';
import { cancelledByRequest, endRun, isActive, markRunning, runUsageAccount, type RunEnding } from './run-lifecycle.ts';
import { ScraperModel, type ScraperDoc } from './scraper.model.ts';

const hostSlot = createHostSlots(() => settings().SCRAPE_HOST_CONCURRENCY);

/**
 * Pays for each page once, whatever the number of attempts: page n of the
 * crawl (an attempt after a crash fetches them again in the same order) is
 * item n of the run's usage account, charged in the same atomic write as
 * the balance. Answers false when the page cannot be paid for, or the run
 * ended or was deleted meanwhile (its account is closed): the crawl stops.
 */
function pagePayer(run: ScrapeRunDoc, engine: ScraperDoc['engine']) {
  const account = runUsageAccount(run._id);
  return async (page: { index: number }): Promise<boolean> => {
    try {
      const debit = await debitCredits(run.workspaceId, 'crawl', creditsPerPage[engine], { account, sequence: page.index });
      if (!debit.repeated) scrapePages.inc({ engine });
      return true;
    } catch (error) {
      if (error instanceof UsageAccountClosedError || (error instanceof AppError && error.code === 'insufficient_credits')) return false;
      throw error;
    }
  };
}

function schemaMismatch(data: unknown, schemaJson: string): string | null {
  const validate = compileJsonSchema(JSON.parse(schemaJson) as Record<string, unknown>, 'output_schema');
  return validate(data) ? null : describeSchemaErrors(validate);
}

/** How often a crawling worker looks for a cancel request: the request may have reached another process, so it is read from the store. */
const cancelLookMs = 1000;

/** Aborts the crawl once its run is asked to stop (a cancel request) or has ended without it (a cancel that gave up waiting). */
function watchForCancel(runId: string) {
  const controller = new AbortController();
  const stopping = {
    _id: runId,
    $or: [{ cancelRequestedAt: { $ne: null } }, { status: { $nin: ['queued', 'running'] as Array<ScrapeRunDoc['status']> } }],
  };
  let looking = false;
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    ScrapeRun.exists(stopping)
      .then((found) => found && controller.abort())
      .catch(() => {}) // the next look tries again
      .finally(() => (looking = false));
  }, cancelLookMs);
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

function outcome(result: CrawlResult): RunEnding {
  const failures = result.failures.map(({ url, reason }) => ({ url, reason }));
  if (result.stoppedBy === 'cancelled') return { status: 'cancelled', pages: result.pages.length, failures, ...cancelledByRequest };
  if (result.pages.length === 0) {
    const first = result.failures[0];
    const reason =
      result.stoppedBy === 'credits' ? 'crawl credits ran out before the first page' : (first?.reason ?? 'no page could be fetched');
    return {
      status: 'failed',
      pages: 0,
      failures,
      error: reason,
      errorCode: result.stoppedBy === 'credits' ? 'insufficient_credits' : (first?.code ?? 'fetch_failed'),
    };
  }
  const stopped =
    result.stoppedBy === 'credits'
      ? `stopped after ${result.pages.length} pages: crawl credits ran out`
      : result.stoppedBy === 'robots'
        ? 'stopped: robots.txt disallows the next page'
        : null;
  return { status: 'completed', pages: result.pages.length, failures, error: stopped, errorCode: stopped ? result.stoppedBy! : null };
}

/** The scrape.run job: crawl, store the result, then end the run completed or failed. Safe to run again after a crash. */
export async function executeRun(runId: string, workspaceId: string): Promise<void> {
  const found = await ScrapeRun.findById(runId).lean<ScrapeRunDoc>();
  // Deleted with its scraper: only its usage account may be left to close.
  if (!found) return closeUsage(workspaceId, runUsageAccount(runId));
  // An attempt that died after ending the run still announces it.
  if (!isActive(found.status)) return void (await endRun(found, null));
  if (found.cancelRequestedAt) return void (await endRun(found, { status: 'cancelled', ...cancelledByRequest }));
  const run = await markRunning(found);
  const scraper = await ScraperModel.findById(run.scraperId).lean<ScraperDoc>();
  if (!scraper) return void (await endRun(run, { status: 'failed', error: 'the scraper was deleted', errorCode: 'scraper_deleted' }));

  const config = settings();
  const noBrowser = scraper.engine === 'browser' ? chromiumProblem(config.CHROMIUM_PATH) : null;
  if (noBrowser) return void (await endRun(run, { status: 'failed', error: noBrowser, errorCode: 'browser_unavailable' }));
  const options: CrawlOptions = {
    startUrl: run.url,
    rules: scraper.extract,
    follow: scraper.follow ?? null,
    crawl: scraper.crawl ?? null,
    maxPages: run.options.max_pages ?? scraper.crawl?.max_pages ?? scraper.follow?.max_pages ?? 1,
    timeoutMs: run.options.timeout_ms ?? config.SCRAPE_PAGE_TIMEOUT_MS,
    respectRobots: scraper.respectRobots,
    policy: addressPolicy(),
    tls: tlsTrust(!scraper.insecureTls),
    maxResponseBytes: config.SCRAPE_MAX_RESPONSE_BYTES,
    waitFor: run.options.wait_for,
    chargePage: pagePayer(run, scraper.engine),
  };
  const cancel = watchForCancel(runId);
  options.signal = cancel.signal;
  const releaseHost = await hostSlot(new URL(run.url).host);
  try {
    const result =
      scraper.engine === 'browser' ? await crawlBrowser({ ...options, chromiumPath: config.CHROMIUM_PATH }) : await crawlHttp(options);
    const ending = outcome(result);
    const mismatch = ending.status === 'completed' ? schemaMismatch(result.data, run.outputSchemaJson ?? scraper.outputSchemaJson) : null;
    if (mismatch)
      Object.assign(ending, {
        status: 'failed',
        error: `the data does not match the output schema: ${mismatch}`,
        errorCode: 'schema_mismatch',
      });
    const keepsData = ending.status === 'completed' || (ending.status === 'cancelled' && result.pages.length > 0);
    if (keepsData) Object.assign(ending, await saveResult(runId, result.data));
    await endRun(run, ending);
  } finally {
    releaseHost();
    cancel.stop();
  }
}
