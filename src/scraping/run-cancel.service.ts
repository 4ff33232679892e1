import type { z } from 'zod';
import type { scrapeRun } from '../../schema/scrape-runs.ts';
import { now } from '../clock.ts';
import { AppError } from '../errors/app-error.ts';
import { cancelledByRequest, endRun, isActive } from './run-lifecycle.ts';
import { ScrapeRun, type ScrapeRunDoc } from './scrape-run.model.ts';
import { getRun, toRun, waitForRunToEnd } from './scrape-runs.service.ts';

/** How long a cancel waits for the crawling worker to stop and store what it read, before ending the run itself. */
const workerStopBudgetMs = 8_000;

const finished = (status: string) =>
  new AppError('conflict', `The run has already ended (${status}); only a queued or running run can be cancelled`, { status });

/**
 * Cancels a queued or running run. A queued run ends at once. A running
 * one is asked to stop through the store (its worker may be another
 * process, which looks once a second): the worker stops, keeps the items it
 * read and paid for, and ends the run `cancelled`. If no worker does so in
 * time (it died, or hangs on a page), the run is ended here without them,
 * and its usage account closed, so nothing more is charged.
 */
export async function cancelRun(workspaceId: string, runId: string): Promise<z.infer<typeof scrapeRun>> {
  const run = await getRun(workspaceId, runId);
  if (!isActive(run.status)) throw finished(run.status);
  const asked = await ScrapeRun.findOneAndUpdate(
    { _id: run._id, status: { $in: ['queued', 'running'] } },
    { $set: { cancelRequestedAt: now() } },
    { returnDocument: 'after' },
  ).lean<ScrapeRunDoc>();
  if (!asked) throw finished((await getRun(workspaceId, runId)).status);
  if (asked.status === 'queued') await endRun(asked, { status: 'cancelled', ...cancelledByRequest });
  const ended = await waitForRunToEnd(workspaceId, runId, workerStopBudgetMs);
  if (isActive(ended.status)) await endRun(ended, { status: 'cancelled', ...cancelledByRequest });
  const final = await getRun(workspaceId, runId);
  // It finished on its own before the worker saw the request.
  if (final.status !== 'cancelled') throw finished(final.status);
  return toRun(final);
}
