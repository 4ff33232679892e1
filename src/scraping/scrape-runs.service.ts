import type { z } from 'zod';
import type { scrapeRun, startScrapeInput } from '../../schema/scrape-runs.ts';
import { UrlNotAllowedError, assertUrlAllowed } from '../../scrapers/url-guard.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { getBalances } from '../credits/credits.service.ts';
import { findOwned } from '../db/find-owned.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { addressPolicy } from './address-policy.ts';
import { creditsPerPage } from './pricing.ts';
import { loadResult } from './result-store.ts';
import { ScrapeRun, type ScrapeRunDoc } from './scrape-run.model.ts';
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

/**
 * Queues a scrape run. The workspace must be able to pay for one page (or
 * have overage on); pages are charged as the worker fetches them.
 */
export async function startScrape(workspaceId: string, input: z.infer<typeof startScrapeInput>) {
  const scraper = await getScraperDoc(workspaceId, input.scraperId);
  await assertScrapableUrl(input.url);
  const balances = await getBalances(workspaceId);
  const price = creditsPerPage[scraper.engine];
  if (balances.crawl < price && !balances.overage) {
    throw new AppError('insufficient_credits', `Not enough crawl credits: a page costs ${price}, ${balances.crawl} left`, { needed: price, remaining: balances.crawl }, 403);
  }
  const run = await ScrapeRun.create({ workspaceId, scraperId: scraper._id, url: input.url, options: input.options ?? {} });
  await enqueueJob(scrapeRunJob, { runId: run._id });
  return { run: run.toObject(), creditsRemaining: balances.crawl };
}

export async function getRun(workspaceId: string, runId: string): Promise<ScrapeRunDoc> {
  const run = await findOwned(ScrapeRun, runId, workspaceId);
  if (!run) throw notFound('Scrape run');
  return run;
}

/** The extracted data once completed; the status while it is not; 422 when the run failed. */
export async function getRunData(workspaceId: string, scraperId: string, runId: string) {
  const run = await getRun(workspaceId, runId);
  if (run.scraperId !== scraperId) throw notFound('Scrape run');
  if (run.status === 'failed' || run.status === 'cancelled') {
    throw new AppError('run_failed', `The run ${run.status === 'failed' ? 'failed' : 'was cancelled'}: ${run.error ?? 'no data'}`, { runId });
  }
  if (run.status !== 'completed') return { runId, status: run.status, data: undefined };
  return { runId, status: run.status, data: await loadResult(runId, run.resultChunks) };
}
