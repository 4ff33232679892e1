import { crawlBrowser } from '../../scrapers/browser-crawl.ts';
import type { CrawlOptions, CrawlResult } from '../../scrapers/crawl-types.ts';
import { createHostSlots } from '../../scrapers/host-slots.ts';
import { crawlHttp } from '../../scrapers/http-crawl.ts';
import { settings } from '../config.ts';
import { debitCredits } from '../credits/credits.service.ts';
import { updateIfMatches } from '../db/update-if-matches.ts';
import { AppError } from '../errors/app-error.ts';
import { log } from '../logger.ts';
import { addressPolicy } from './address-policy.ts';
import { cacheResult } from './endpoint-cache.ts';
import { compileJsonSchema, describeSchemaErrors } from './json-schema.ts';
import { creditsPerPage } from './pricing.ts';
import { saveResult } from './result-store.ts';
import { ScrapeRun, type ScrapeRunDoc } from './scrape-run.model.ts';
import { ScraperModel, type ScraperDoc } from './scraper.model.ts';

const hostSlot = createHostSlots(() => settings().SCRAPE_HOST_CONCURRENCY);

/** Attempts (including ones whose worker died) before a run is failed for good. */
export const maxRunAttempts = 3;

/** Ends a run that has not ended yet (never reopens a finished one). */
const finish = (runId: string, changes: Partial<ScrapeRunDoc>) =>
  updateIfMatches(ScrapeRun, runId, { status: { $in: ['queued', 'running'] } }, { $set: { ...changes, finishedAt: new Date() } });

/**
 * Pays for a page at most once per run, across retries: the page is
 * recorded on the run before credits are taken, so a worker dying between
 * the two leaves it unpaid rather than paid twice.
 */
function pagePayer(run: ScrapeRunDoc, price: number) {
  const paid = new Set(run.chargedPages);
  return async (url: string): Promise<boolean> => {
    if (paid.has(url)) return true;
    // By primary key only (FerretDB answers nothing else without a scan); $addToSet is a no-op for a recorded page.
    const recorded = await ScrapeRun.updateOne({ _id: run._id }, { $addToSet: { chargedPages: url } });
    if (recorded.modifiedCount === 0) return true;
    try {
      const debit = await debitCredits(run.workspaceId, 'crawl', price);
      await ScrapeRun.updateOne({ _id: run._id }, { $inc: { creditsCharged: debit.charged, overageCredits: debit.overage } });
      paid.add(url);
      return true;
    } catch (error) {
      await ScrapeRun.updateOne({ _id: run._id }, { $pull: { chargedPages: url } });
      if (error instanceof AppError && error.appCode === 'insufficient_credits') return false;
      throw error;
    }
  };
}

function schemaMismatch(data: unknown, schemaJson: string): string | null {
  const validate = compileJsonSchema(JSON.parse(schemaJson) as Record<string, unknown>, 'output_schema');
  return validate(data) ? null : describeSchemaErrors(validate);
}

function outcome(result: CrawlResult): Partial<ScrapeRunDoc> {
  const failures = result.failures.map(({ url, reason }) => ({ url, reason }));
  if (result.pages.length === 0) {
    const first = result.failures[0];
    const reason = result.stoppedBy === 'credits' ? 'crawl credits ran out before the first page' : (first?.reason ?? 'no page could be fetched');
    return { status: 'failed', pages: 0, failures, error: reason, errorCode: result.stoppedBy === 'credits' ? 'insufficient_credits' : (first?.code ?? 'fetch_failed') };
  }
  const stopped = result.stoppedBy === 'credits' ? `stopped after ${result.pages.length} pages: crawl credits ran out` : result.stoppedBy === 'robots' ? 'stopped: robots.txt disallows the next page' : null;
  return { status: 'completed', pages: result.pages.length, failures, error: stopped, errorCode: stopped ? result.stoppedBy! : null };
}

/** The scrape.run job: crawl, store the result, then mark the run completed or failed. Safe to run again after a crash. */
export async function executeRun(runId: string): Promise<void> {
  const run = await ScrapeRun.findById(runId).lean<ScrapeRunDoc>();
  if (!run || (run.status !== 'queued' && run.status !== 'running')) return;
  if (run.attempts >= maxRunAttempts) {
    await finish(runId, { status: 'failed', error: `the run was interrupted ${run.attempts} times`, errorCode: 'worker_lost' });
    return;
  }
  await ScrapeRun.updateOne({ _id: runId }, { $set: { status: 'running', startedAt: run.startedAt ?? new Date() }, $inc: { attempts: 1 } });
  const scraper = await ScraperModel.findById(run.scraperId).lean<ScraperDoc>();
  if (!scraper) {
    await finish(runId, { status: 'failed', error: 'the scraper was deleted', errorCode: 'scraper_deleted' });
    return;
  }
  const config = settings();
  const options: CrawlOptions = {
    startUrl: run.url,
    rules: scraper.extract,
    follow: scraper.follow,
    maxPages: run.options.max_pages ?? scraper.follow?.max_pages ?? 1,
    timeoutMs: run.options.timeout_ms ?? config.SCRAPE_PAGE_TIMEOUT_MS,
    respectRobots: scraper.respectRobots,
    policy: addressPolicy(),
    maxResponseBytes: config.SCRAPE_MAX_RESPONSE_BYTES,
    waitFor: run.options.wait_for,
    chargePage: pagePayer(run, creditsPerPage[scraper.engine]),
  };
  const releaseHost = await hostSlot(new URL(run.url).host);
  try {
    const result = scraper.engine === 'browser' ? await crawlBrowser({ ...options, chromiumPath: config.CHROMIUM_PATH }) : await crawlHttp(options);
    const changes = outcome(result);
    const mismatch = changes.status === 'completed' ? schemaMismatch(result.data, run.outputSchemaJson ?? scraper.outputSchemaJson) : null;
    if (mismatch) Object.assign(changes, { status: 'failed', error: `the data does not match the output schema: ${mismatch}`, errorCode: 'schema_mismatch' });
    if (changes.status === 'completed') changes.resultChunks = await saveResult(runId, result.data);
    await finish(runId, changes);
    if (changes.status === 'completed' && run.cacheKey) await cacheResult(run);
  } catch (error) {
    log.error('scrape run attempt failed', { runId, attempt: run.attempts + 1, error: error instanceof Error ? error.message : String(error) });
    if (run.attempts + 1 < maxRunAttempts) throw error;
    await finish(runId, { status: 'failed', error: 'the scrape failed unexpectedly', errorCode: 'internal_error' });
  } finally {
    releaseHost();
  }
}
