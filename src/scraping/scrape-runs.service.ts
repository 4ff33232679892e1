import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { listScraperRunsInput, listScraperRunsOutput, scrapeRun, startScrapeInput } from '../../schema/scrape-runs.ts';
import { scrapeRunJob } from './jobs/scrape-run.job.ts';
import { enqueue, enqueueOnceAt, strandedBefore } from '../jobs/queue.ts';
import { settings } from '../config.ts';
import { closeUsage, creditsExhausted, getBalances, usageOf } from '../credits/index.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { findOwned } from '../db/find-owned.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { assertUrlAllowed, UrlNotAllowedError } from '../../outbound/address-guard.ts';
import { addressPolicy } from '../net/address-policy.ts';
import { creditsPerPage } from './pricing.ts';
import { deleteResult, loadResult } from './result-store.ts';
import { endRun, isActive, runUsageAccount } from './run-lifecycle.ts';
import { ScrapeRun, type ScrapeRunDoc } from './scrape-run.model.ts';
import type { ScraperDoc } from './scraper.model.ts';
import { getScraperDoc } from './scraper-lookup.ts';

/** A run as the API shows it; while it works, its counts come from its usage account, so they move page by page. */
export async function toRun(doc: ScrapeRunDoc): Promise<z.infer<typeof scrapeRun>> {
  const live = isActive(doc.status) ? await usageOf(doc.workspaceId, runUsageAccount(doc._id)) : null;
  return {
    id: doc._id,
    scraperId: doc.scraperId,
    url: doc.url,
    status: doc.status,
    pages: live ? live.items : doc.pages,
    pagesCharged: live ? live.items : doc.pagesCharged,
    creditsCharged: live ? live.charged : doc.creditsCharged,
    overageCredits: live ? live.overage : doc.overageCredits,
    failures: doc.failures.map(({ url, reason }) => ({ url, reason })),
    error: doc.error ?? null,
    errorCode: doc.errorCode ?? null,
    schedule_id: doc.scheduleId ?? null,
    created_at: doc.createdAt.toISOString(),
    started_at: doc.startedAt?.toISOString() ?? null,
    finished_at: doc.finishedAt?.toISOString() ?? null,
  };
}

/** Refuses URLs whose host is, or resolves to, an address scrapes may not reach. */
async function assertScrapableUrl(url: string) {
  try {
    await assertUrlAllowed(url, addressPolicy());
  } catch (error) {
    if (error instanceof UrlNotAllowedError) throw new AppError('url_not_allowed', `url: ${error.message}`, { field: 'url' });
    throw error;
  }
}

/** A run may start only if the workspace can pay for one page (or has overage on); insufficient_credits otherwise. */
async function assertCanPayOnePage(workspaceId: string, scraper: ScraperDoc): Promise<number> {
  const balances = await getBalances(workspaceId);
  const price = creditsPerPage[scraper.engine];
  if (balances.crawl < price && !balances.overage) throw creditsExhausted('crawl', price, balances.crawl);
  return balances.crawl;
}

/** What a caller may set on a run beyond the page: its options, another output schema, and its id when it must know it first. */
type RunExtras = Partial<Pick<ScrapeRunDoc, 'options' | 'outputSchemaJson' | 'scheduleId'>> & { runId?: string };

/** A scraper's runs, newest first, at most `limit`, with the count of all matching; 404 for another workspace's scraper. */
export async function listScraperRuns(
  workspaceId: string,
  input: z.infer<typeof listScraperRunsInput>,
): Promise<z.infer<typeof listScraperRunsOutput>> {
  const scraper = await getScraperDoc(workspaceId, input.id);
  const filter = { workspaceId, scraperId: scraper._id, ...(input.status && { status: input.status }) };
  const [docs, total] = await Promise.all([
    ScrapeRun.find(filter).sort({ createdAt: -1, _id: -1 }).limit(input.limit).lean<ScrapeRunDoc[]>(),
    ScrapeRun.countDocuments(filter),
  ]);
  const runs = await Promise.all(docs.map(toRun));
  return {
    runs: runs.map((run) => ({
      id: run.id,
      status: run.status,
      url: run.url,
      pages: run.pages,
      credits: run.creditsCharged + run.overageCredits,
      created_at: run.created_at,
      finished_at: run.finished_at,
      error: run.error,
      schedule_id: run.schedule_id,
    })),
    total,
  };
}

/** Checks the URL and the balance, then saves the run and queues it for a worker. Pages are charged as they are fetched. */
export async function queueRun(workspaceId: string, scraper: ScraperDoc, url: string, { runId = randomUUID(), ...extras }: RunExtras = {}) {
  await assertScrapableUrl(url);
  const creditsRemaining = await assertCanPayOnePage(workspaceId, scraper);
  const run = (await ScrapeRun.create({ _id: runId, workspaceId, scraperId: scraper._id, url, ...extras })).toObject() as ScrapeRunDoc;
  try {
    await enqueue(scrapeRunJob, { runId: run._id, workspaceId });
  } catch (error) {
    await ScrapeRun.deleteOne({ _id: run._id }); // never a run that no worker will ever take
    throw error;
  }
  return { run, creditsRemaining };
}

/**
 * Queues the run; with `options.wait`, also waits up to the inline budget
 * and hands back the run as it then is (completed or still working).
 */
export async function startScrape(workspaceId: string, input: z.infer<typeof startScrapeInput>) {
  const scraper = await getScraperDoc(workspaceId, input.scraperId);
  const queued = await queueRun(workspaceId, scraper, input.url, { options: input.options ?? {} });
  if (!input.options?.wait) return { ...queued, completed: null };
  const run = await waitForRunToEnd(workspaceId, queued.run._id, settings().INVOKE_INLINE_TIMEOUT_MS);
  if (run.status !== 'completed') return { ...queued, completed: null };
  const { data } = await runData(run);
  return { run, creditsRemaining: (await getBalances(workspaceId)).crawl, completed: { data } };
}

/** Polls the run until it ends or `budgetMs` runs out, and returns it as it then is. */
export async function waitForRunToEnd(workspaceId: string, runId: string, budgetMs: number): Promise<ScrapeRunDoc> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const run = await getRun(workspaceId, runId);
    if (!isActive(run.status) || Date.now() >= deadline) return run;
    await new Promise((r) => setTimeout(r, Math.min(100, Math.max(1, deadline - Date.now()))));
  }
}

export async function getRun(workspaceId: string, runId: string): Promise<ScrapeRunDoc> {
  const run = (await findOwned(ScrapeRun, runId, workspaceId)) as ScrapeRunDoc | null;
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
  // A cancelled run keeps the items it read (none when it was cancelled before its first page).
  if (run.status === 'failed' || (run.status === 'cancelled' && !run.resultKey)) {
    throw new AppError('run_failed', `The run ${run.status === 'failed' ? 'failed' : 'was cancelled'}: ${run.error ?? 'no data'}`, {
      runId,
    });
  }
  if (isActive(run.status) || !run.resultKey) return { runId, status: run.status, data: undefined };
  return { runId, status: run.status, data: await loadResult(run.resultKey, run.resultChunks) };
}

/**
 * Deletes every run of a scraper with its results. A run still working
 * stops at its next page (its usage account is closed first), and if it
 * ends after all, its attempt deletes the result it stored (run-lifecycle).
 */
export async function deleteScraperRuns(workspaceId: string, scraperId: string): Promise<number> {
  const runs = await ScrapeRun.find({ workspaceId, scraperId }, { status: 1 }).lean<ScrapeRunDoc[]>();
  for (const run of runs) {
    if (isActive(run.status)) await closeUsage(workspaceId, runUsageAccount(run._id));
    // The run as it was when deleted, so a result stored since it was listed goes with it.
    const deleted = await ScrapeRun.findByIdAndDelete(run._id).lean<ScrapeRunDoc>();
    if (deleted?.resultKey) await deleteResult(deleted.resultKey, deleted.resultChunks);
  }
  return runs.length;
}

/**
 * Queues again the runs queued (or running) since before strandedBefore with no job: the process of their request
 * died between saving the run and queuing it. Once per run: a run whose job is queued or under way keeps it.
 */
export async function requeueStrandedScrapeRuns(): Promise<void> {
  const waiting = { status: { $in: ['queued', 'running'] as const }, updatedAt: { $lt: strandedBefore() } };
  const runs = await ScrapeRun.find(waiting, { _id: 1, workspaceId: 1 }).lean<Array<{ _id: string; workspaceId: string }>>();
  for (const { _id, workspaceId } of runs) await enqueueOnceAt(scrapeRunJob, new Date(), { runId: _id, workspaceId }, ['runId']);
}

/** Start refusals a scheduled run is recorded as failed for: nobody is waiting on a request to be told. */
const refusedAtStart = new Set<string>(['insufficient_credits', 'url_not_allowed']);

/**
 * Starts a schedule's run under `runId`, an id the schedule derives from the
 * due time: a second start for the same due time (another worker, a retry)
 * finds it taken, and answers false. A run refused at start (no credits, an
 * address no longer allowed) is recorded failed with the refusal's code and
 * announced as failed runs are (scrape.run.failed).
 */
export async function startScheduledRun(
  workspaceId: string,
  input: { scraperId: string; url: string; options: ScrapeRunDoc['options']; scheduleId: string; runId: string },
): Promise<boolean> {
  const scraper = await getScraperDoc(workspaceId, input.scraperId);
  const extras = { options: input.options, scheduleId: input.scheduleId };
  try {
    await queueRun(workspaceId, scraper, input.url, { runId: input.runId, ...extras });
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    if (!(error instanceof AppError) || !refusedAtStart.has(error.code)) throw error;
    try {
      const run = (
        await ScrapeRun.create({ _id: input.runId, workspaceId, scraperId: scraper._id, url: input.url, ...extras })
      ).toObject() as ScrapeRunDoc;
      await endRun(run, { status: 'failed', error: error.message, errorCode: error.code });
      return true;
    } catch (recordError) {
      if (isDuplicateKey(recordError)) return false;
      throw recordError;
    }
  }
}
