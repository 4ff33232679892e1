import { setTimeout as sleep } from 'node:timers/promises';
import { exponential, type Agenda, type Job } from 'agenda';
import { chromiumProblem } from '../../scrapers/chromium.ts';
import { settings } from '../config.ts';
import { isDatabaseUnreachable } from '../db/connection.ts';
import { noteDatabaseFault } from '../db/store-health.ts';
import { databaseFault } from '../errors/database-faults.ts';
import { countJobStart, forgetJobStarts } from '../jobs/job-attempts.ts';
import type { JobHandler } from '../jobs/job-handler.ts';
import { jobQueue, newJobQueue, resetJobQueue } from '../jobs/queue.ts';
import { log, outsideRequest } from '../logger.ts';
import { jobRuns } from '../metrics/metrics.ts';
import { startEventDispatcher } from './event-dispatcher.ts';
import { jobRegistry, retiredRecurringJobs } from './registry.ts';
import { subscribers } from './subscribers.ts';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs one job, renewing its lock while it works: a live worker keeps the
 * job however long it takes, and a dead one's lock lapses after the job's
 * lock lifetime so another worker takes the job over. Every start is
 * counted; once the contract's attempts are spent the job is given up
 * (its `giveUp` leaves the work in a final state) instead of run again.
 */
async function handle(handler: JobHandler, job: Job, lockLifetimeMs: number) {
  const contract = handler.contract;
  const parsed = contract.payload.safeParse(job.attrs.data ?? {});
  // A payload that breaks the job's contract (saved by other code, or an older release) cannot succeed on a retry.
  if (!parsed.success) {
    jobRuns.inc({ job: contract.name, outcome: 'refused' });
    return log.error('job payload refused', { job: contract.name, error: parsed.error.message });
  }
  const payload = parsed.data;
  const jobId = String(job.attrs._id);
  const attempt = await countJobStart(jobId);
  const lastAttempt = attempt >= contract.retries + 1;
  if (attempt > contract.retries + 1) {
    // Its workers died (or its giveUp failed, and Agenda ran it again to give it up once more).
    const failed = Boolean(job.attrs.failCount);
    const message = failed ? (job.attrs.failReason ?? 'the job failed') : `the job was interrupted ${attempt - 1} times`;
    await handler.giveUp?.(payload, { kind: failed ? 'failed' : 'interrupted', message, starts: attempt - 1 }, { id: jobId });
    await forgetJobStarts(jobId);
    jobRuns.inc({ job: contract.name, outcome: 'given_up' });
    return;
  }
  const renew = setInterval(() => void job.touch().catch(() => undefined), Math.max(500, lockLifetimeMs / 3));
  try {
    await handler.handle(payload, { id: jobId });
    await forgetJobStarts(jobId);
    jobRuns.inc({ job: contract.name, outcome: 'completed' });
  } catch (error) {
    // The database going away fails whatever runs at that moment; the connection watcher reports it once, on its own
    // line. A full disk is reported once too, and on /healthz, until a write succeeds again.
    noteDatabaseFault(error);
    if (isDatabaseUnreachable(error))
      log.info('job failed: the database is unreachable', { job: contract.name, attempt, error: messageOf(error) });
    else if (databaseFault(error) === 'storage_full')
      log.warn('job failed: storage full', { job: contract.name, attempt, error: messageOf(error) });
    else log.error('job failed', { job: contract.name, attempt, error: messageOf(error) });
    if (!lastAttempt) {
      jobRuns.inc({ job: contract.name, outcome: 'failed' });
      throw error; // Agenda runs it again after a backoff.
    }
    // A giveUp that fails throws too: Agenda then runs the job again, which gives it up again.
    await handler.giveUp?.(payload, { kind: 'failed', message: messageOf(error), starts: attempt }, { id: jobId });
    await forgetJobStarts(jobId);
    jobRuns.inc({ job: contract.name, outcome: 'given_up' });
  } finally {
    clearInterval(renew);
  }
}

/** Teaches a worker one job: how to run it, hold its lock, and space its retries. */
export function defineWorkerJob(worker: Agenda, handler: JobHandler) {
  const { contract } = handler;
  const lockLifetime = contract.lockLifetimeMs?.() ?? 10 * 60_000;
  // A job a request set off (in-memory channel) runs outside that request: its log lines carry no request id.
  worker.define(contract.name, (job: Job) => outsideRequest(() => handle(handler, job, lockLifetime)), {
    lockLifetime,
    // A recurring job is one document: while this worker runs it there is no other to look up (nor to run at once).
    ...(contract.everyMs && { lockLimit: 1 }),
    // Finished one-off jobs leave nothing behind (recurring ones are kept by Agenda): its lookups for the
    // next job would read every old one.
    removeOnComplete: true,
    // Two runs beyond the job's own retries, used only to give it up when its giveUp failed.
    backoff: exponential({ delay: 1_000, maxRetries: contract.retries + 2, maxDelay: 5 * 60_000 }),
  });
}

/** Agenda's in-flight lookups, which it does not await on stop (they would meet a closed connection). */
interface AgendaProcessorState {
  isJobQueueFilling?: Map<string, boolean>;
  localQueueProcessing?: number;
}

async function queueFillingSettled(processor: AgendaProcessorState | undefined) {
  const busy = () => (processor?.isJobQueueFilling?.size ?? 0) > 0 || (processor?.localQueueProcessing ?? 0) > 0;
  for (const deadline = Date.now() + 2_000; busy() && Date.now() < deadline;) await sleep(20);
  await sleep(50); // the unlock Agenda starts last without awaiting it
}

/** Events the dispatcher holds at once: enough for a busy outbox to be handed on in batches of a hundred. */
const eventsInHand = 200;

/** How often the worker looks for due jobs when no recurring job is due more often. */
const pollMs = 1_000;

/** Starts processing every registered job in this process. */
export async function startWorker(options: { concurrency: number }): Promise<{ stop: () => Promise<void> }> {
  const processors = jobProcessors(options.concurrency);
  for (const { agenda, handlers, everyMs } of processors) {
    for (const handler of handlers) defineWorkerJob(agenda, handler);
    agenda.processEvery(everyMs);
    await agenda.start();
  }
  const noBrowser = chromiumProblem(settings().CHROMIUM_PATH);
  if (noBrowser) log.warn(noBrowser);
  await jobQueue().cancel({ names: retiredRecurringJobs });
  for (const { agenda, handlers } of processors)
    for (const { contract } of handlers) if (contract.everyMs) await agenda.every(contract.everyMs(), contract.name, {});
  const dispatcher = startEventDispatcher({ concurrency: eventsInHand, subscribers, turnMs: settings().WEBHOOK_LOCK_LIFETIME_MS });
  log.info('worker started', { jobs: jobRegistry.map((j) => j.contract.name) });
  return {
    stop: async () => {
      await dispatcher.stop(settings().WORKER_STOP_GRACE_MS);
      // Running jobs may finish within the grace; the rest keep their locks, which lapse so another worker takes them over.
      for (const { agenda } of processors) await agenda.drain({ timeout: settings().WORKER_STOP_GRACE_MS, closeConnection: false });
      for (const { agenda } of processors) {
        const processor = (agenda as unknown as { jobProcessor?: AgendaProcessorState }).jobProcessor;
        await agenda.stop(false);
        await queueFillingSettled(processor);
      }
      resetJobQueue();
      for (const handler of jobRegistry) await handler.onWorkerStop?.();
    },
  };
}

/**
 * Agenda looks up every job name it runs, one query each, whenever it looks. A recurring job runs again only once
 * the worker next looks, so a job due more often than once a second (an OUTREACH_TICK_MS under a second) gets an
 * instance of its own looking at its interval, and the other names are still looked up once a second, not at its
 * pace too. The first processor is the process's job queue, which jobs enqueued in this process are handed to.
 */
function jobProcessors(concurrency: number) {
  const isQuick = ({ contract }: JobHandler) => contract.everyMs !== undefined && contract.everyMs() < pollMs;
  const quick = jobRegistry.filter(isQuick);
  const processors = [{ agenda: jobQueue({ concurrency }), handlers: jobRegistry.filter((h) => !isQuick(h)), everyMs: pollMs }];
  if (quick.length)
    processors.push({
      agenda: newJobQueue({ concurrency: quick.length }),
      handlers: quick,
      everyMs: Math.min(...quick.map(({ contract }) => contract.everyMs!())),
    });
  return processors;
}
