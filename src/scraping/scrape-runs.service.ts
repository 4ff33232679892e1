import type { z } from 'zod';
import type { scrapeRun, startScrapeInput } from '../../schema/scrape-runs.ts';
import { UrlNotAllowedError, assertUrlAllowed } from '../../scrapers/url-guard.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { settings } from '../config.ts';
import { getBalances } from '../credits/credits.service.ts';
import { findOwned } from '../db/find-owned.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { addressPolicy } from './address-policy.ts';
import { creditsPerPage } from './pricing.ts';
import { loadResult } from './result-store.ts';
import { ScrapeRun, type ScrapeRunDoc } from './scrape-run.model.ts';
import type { ScraperDoc } from './scraper.model.ts';
import { getScraperDoc } from './scrapers.service.ts';

export const scrapeRunJob = 'scrape.run';

export function toRun(doc: ScrapeRunDoc): z.infer<typeof scrapeRun> {
  return {
    id: doc._id,
    scraperId: doc.scraperId,
    url: doc.url,
    status: doc.status,
    pages: doc.pages,
    pagesCharged: doc.chargedPages.length,
    creditsCharged: doc.creditsCharged,
    overageCredits: doc.overageCredits,
    failures: doc.failures.map(({ url, reason }) => ({ url, reason })),
    error: doc.error,
    errorCode: doc.errorCode,
    created_at: doc.createdAt.toISOString(),
    started_at: doc.startedAt?.toISOString() ?? null,
    finished_at: doc.finishedAt?.toISOString() ?? null,
  };
}

/** Refuses URLs whose host is, or resolves to, an address scrapes may not reach. */
export async function assertScrapableUrl(url: string) {
  try {
    await assertUrlAllowed(url, addressPolicy());
  } catch (error) {
    if (error instanceof UrlNotAllowedError) throw new AppError('url_not_allowed', `url: ${error.message}`, { field: 'url' });
    throw error;
  }
}

/** A run may start only if the workspace can pay for one page (or has overage on); 403 insufficient_credits otherwise. */
async function assertCanPayOnePage(workspaceId: string, scraper: ScraperDoc): Promise<number> {
  const balances = await getBalances(workspaceId);
  const price = creditsPerPage[scraper.engine];
  if (balances.crawl < price && !balances.overage) {
    throw new AppError('insufficient_credits', `Not enough crawl credits: a page costs ${price}, ${balances.crawl} left`, { needed: price, remaining: balances.crawl }, 403);
  }
  return balances.crawl;
}

type RunExtras = Partial<Pick<ScrapeRunDoc, 'options' | 'outputSchemaJson' | 'endpointId' | 'cacheKey' | 'cacheTtlSeconds'>>;

/** Checks the URL and the balance, then saves the run and queues it for a worker. Pages are charged as they are fetched. */
export async function queueRun(workspaceId: string, scraper: ScraperDoc, url: string, extras: RunExtras = {}) {
  await assertScrapableUrl(url);
  const creditsRemaining = await assertCanPayOnePage(workspaceId, scraper);
  const run = await ScrapeRun.create({ workspaceId, scraperId: scraper._id, url, ...extras });
  await enqueueJob(scrapeRunJob, { runId: run._id });
  return { run: run.toObject() as ScrapeRunDoc, creditsRemaining };
}

/**
 * Queues the run; with `options.wait`, also waits up to the inline budget
 * and hands back the run as it then is (completed or still working).
 */
export async function startScrape(workspaceId: string, input: z.infer<typeof startScrapeInput>) {
  const scraper = await getScraperDoc(workspaceId, input.scraperId);
  const queued = await queueRun(workspaceId, scraper, input.url, { options: input.options ?? {} });
  if (!input.options?.wait) return { ...queued, completed: null };
  const run = await waitForRunToEnd(queued.run._id, settings().INVOKE_INLINE_TIMEOUT_MS);
  if (run.status !== 'completed') return { ...queued, completed: null };
  const { data } = await runData(run);
  return { run, creditsRemaining: (await getBalances(workspaceId)).crawl, completed: { data } };
}

const terminal = new Set(['completed', 'failed', 'cancelled']);

/** Polls the run until it ends or `budgetMs` runs out, and returns it as it then is. */
export async function waitForRunToEnd(runId: string, budgetMs: number): Promise<ScrapeRunDoc> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const run = (await ScrapeRun.findById(runId).lean<ScrapeRunDoc>())!;
    if (terminal.has(run.status) || Date.now() >= deadline) return run;
    await new Promise((r) => setTimeout(r, Math.min(100, Math.max(1, deadline - Date.now()))));
  }
}

/** A run by id whatever its workspace (for a cache entry already scoped to one), or null. */
export const findRun = (runId: string) => ScrapeRun.findById(runId).lean<ScrapeRunDoc>();

export async function getRun(workspaceId: string, runId: string): Promise<ScrapeRunDoc> {
  const run = await findOwned(ScrapeRun, runId, workspaceId);
  if (!run) throw notFound('Scrape run');
  return run;
}

/** The extracted data once completed; the status while it is not; 422 when the run failed. */
export async function getRunData(workspaceId: string, scraperId: string, runId: string) {
  const run = await getRun(workspaceId, runId);
  if (run.scraperId !== scraperId) throw notFound('Scrape run');
  return runData(run);
}

export async function runData(run: ScrapeRunDoc) {
  const runId = run._id;
  if (run.status === 'failed' || run.status === 'cancelled') {
    throw new AppError('run_failed', `The run ${run.status === 'failed' ? 'failed' : 'was cancelled'}: ${run.error ?? 'no data'}`, { runId });
  }
  if (run.status !== 'completed') return { runId, status: run.status, data: undefined };
  return { runId, status: run.status, data: await loadResult(runId, run.resultChunks) };
}
