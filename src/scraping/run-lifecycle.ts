import { now } from '../clock.ts';
import { closeUsage, openUsage, usageOf, type Usage } from '../credits/index.ts';
import { emitEvent } from '../events/events.service.ts';
import type { GiveUpReason } from '../jobs/job-contract.ts';
import { deleteResult } from './result-store.ts';
import { ScrapeRun, type ScrapeRunDoc } from './scrape-run.model.ts';

/** The credit usage account a run's pages are charged to: its live progress while it works. */
export const runUsageAccount = (runId: string) => `scrape-run:${runId}`;

const activeStatuses: Array<ScrapeRunDoc['status']> = ['queued', 'running'];
export const isActive = (status: ScrapeRunDoc['status']) => activeStatuses.includes(status);

/** A cancelled run's `error` and `errorCode`. */
export const cancelledByRequest = { error: 'cancelled by request', errorCode: 'cancelled' } as const;

/** How a run ends: its final status and what the crawl found. */
export type RunEnding = Pick<ScrapeRunDoc, 'status'> &
  Partial<Pick<ScrapeRunDoc, 'pages' | 'failures' | 'error' | 'errorCode' | 'resultKey' | 'resultChunks'>>;

const reread = (runId: string) => ScrapeRun.findById(runId).lean<ScrapeRunDoc>();

/** Opens the run's usage account, then the run's first write: running, with its start time (a retried attempt finds both done). */
export async function markRunning(run: ScrapeRunDoc): Promise<ScrapeRunDoc> {
  if (run.status !== 'queued') return run;
  await openUsage(run.workspaceId, runUsageAccount(run._id));
  const started = await ScrapeRun.findOneAndUpdate(
    { _id: run._id, status: 'queued' },
    { $set: { status: 'running', startedAt: now() } },
    { returnDocument: 'after' },
  ).lean<ScrapeRunDoc>();
  return started ?? (await reread(run._id)) ?? run;
}

/**
 * The run's last write: `ending` plus its totals, taken from its usage
 * account, on a run still active (never reopening an ended one). Then the
 * account is closed and the end announced as an event. With a null ending
 * it only finishes that work for a run an earlier attempt already ended.
 */
export async function endRun(run: ScrapeRunDoc, ending: RunEnding | null): Promise<void> {
  let ended: ScrapeRunDoc | null = run;
  if (ending && isActive(run.status)) {
    const usage: Usage = await usageOf(run.workspaceId, runUsageAccount(run._id));
    const totals = { pagesCharged: usage.items, creditsCharged: usage.charged, overageCredits: usage.overage };
    const written = await ScrapeRun.findOneAndUpdate(
      { _id: run._id, status: { $in: activeStatuses } },
      { $set: { ...ending, ...totals, finishedAt: now() } },
      { returnDocument: 'after' },
    ).lean<ScrapeRunDoc>();
    // A run that ended (or was deleted) meanwhile keeps what it has: this attempt's stored result goes.
    if (!written && ending.resultKey) await deleteResult(ending.resultKey, ending.resultChunks ?? 0);
    ended = written ?? (await reread(run._id));
  }
  // A run deleted with its scraper while it worked leaves only its account to close.
  if (!ended) return closeUsage(run.workspaceId, runUsageAccount(run._id));
  if (isActive(ended.status)) return;
  await closeUsage(ended.workspaceId, runUsageAccount(ended._id));
  const data = {
    runId: ended._id,
    scraperId: ended.scraperId,
    url: ended.url,
    pages: ended.pages,
    creditsCharged: ended.creditsCharged,
    error: ended.error ?? null,
    errorCode: ended.errorCode ?? null,
  };
  await emitEvent(ended.workspaceId, `scrape.run.${ended.status as 'completed' | 'failed' | 'cancelled'}`, data, ended._id);
}

/** The scrape job's attempts are spent: the run fails, saying whether its workers died or its crawl kept failing. */
export async function giveUpRun(runId: string, reason: GiveUpReason): Promise<void> {
  const run = await reread(runId);
  if (!run) return;
  const ending: RunEnding =
    reason.kind === 'interrupted'
      ? { status: 'failed', error: `the run was interrupted ${reason.starts} times`, errorCode: 'worker_lost' }
      : { status: 'failed', error: 'the scrape failed unexpectedly', errorCode: 'internal_error' };
  await endRun(run, ending);
}
