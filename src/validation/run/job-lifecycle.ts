import type { GiveUpReason } from '../../jobs/job-contract.ts';
import { now, nowMs } from '../../clock.ts';
import { closeUsage, openUsage } from '../../credits/index.ts';
import { emitEvent } from '../../events/events.service.ts';
import { toJob } from '../job-mapper.ts';
import { ValidationJob, type ValidationJobDoc } from '../validation-job.model.ts';
import { ValidationNote, ValidationWork } from '../validation-work.model.ts';

/** The credit usage account a job's billable results are charged to, result n as item n. */
export const jobUsageAccount = (jobId: string) => `validation-job:${jobId}`;

const activeStatuses: Array<ValidationJobDoc['status']> = ['queued', 'running'];
export const isActiveJob = (status: ValidationJobDoc['status']) => activeStatuses.includes(status);

/** What a run of the job keeps current: its progress, written about once a second. */
export type JobProgress = Pick<
  ValidationJobDoc,
  'processed' | 'billable' | 'creditsCharged' | 'overageCredits' | 'counts' | 'deferred' | 'reused' | 'settledThrough' | 'nextRetryAt'
>;

/** The job after `update`, applied only while it matches `condition`; null when it does not. */
const conditional = (jobId: string, condition: Record<string, unknown>, update: Record<string, unknown>) =>
  ValidationJob.findOneAndUpdate({ _id: jobId, ...condition }, update, { returnDocument: 'after' }).lean<ValidationJobDoc>();

export const readJob = (jobId: string) => ValidationJob.findById(jobId).lean<ValidationJobDoc>();

export type LeaseAnswer = { kind: 'taken'; job: ValidationJobDoc } | { kind: 'busy'; until: Date } | { kind: 'not_mine' };

/**
 * Takes the job for one worker run: one run works on a job at a time, and a
 * run whose worker died loses it once `leaseMs` passes without renewal. A
 * job waiting for its next retry (`continuationAt`) is taken only by the
 * continuation scheduled for that time (`at`); taking it clears the time,
 * so a second copy of the same continuation finds nothing to do. A queued
 * job is marked running, its usage account opened first.
 */
export async function takeLease(jobId: string, owner: string, leaseMs: number, at: string | undefined): Promise<LeaseAnswer> {
  const job = await readJob(jobId);
  if (!job || !isActiveJob(job.status)) return { kind: 'not_mine' };
  if (job.continuationAt && job.continuationAt.toISOString() !== at) return { kind: 'not_mine' };
  if (job.leaseUntil && job.leaseUntil.getTime() >= nowMs()) return { kind: 'busy', until: job.leaseUntil };
  await openUsage(job.workspaceId, jobUsageAccount(jobId));
  const free = { $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now() } }] };
  const start = job.status === 'queued' ? { status: 'running', startedAt: now() } : {};
  const taken = await conditional(
    jobId,
    { status: job.status, continuationAt: job.continuationAt ?? null, ...free },
    {
      $set: { leaseOwner: owner, leaseUntil: new Date(nowMs() + leaseMs), continuationAt: null, ...start },
    },
  );
  return taken ? { kind: 'taken', job: taken } : { kind: 'not_mine' };
}

/** Writes the run's progress and renews its lease; answers why not when the job was cancelled or taken by another run. */
export async function writeProgress(
  jobId: string,
  owner: string,
  progress: JobProgress,
  leaseMs: number,
): Promise<'ok' | 'cancelled' | 'lost'> {
  const written = await conditional(
    jobId,
    { leaseOwner: owner, status: 'running' },
    { $set: { ...progress, leaseUntil: new Date(nowMs() + leaseMs) } },
  );
  if (written) return 'ok';
  return (await readJob(jobId))?.status === 'cancelled' ? 'cancelled' : 'lost';
}

/** Leaves the job to its continuation at `at` (already scheduled): progress, the time, and the lease given up. */
export async function pauseJob(jobId: string, owner: string, progress: JobProgress, at: Date): Promise<boolean> {
  const paused = await conditional(
    jobId,
    { leaseOwner: owner, status: 'running' },
    { $set: { ...progress, nextRetryAt: at, continuationAt: at, leaseOwner: null, leaseUntil: null } },
  );
  return paused !== null;
}

export interface JobEnding {
  status: 'completed' | 'failed' | 'cancelled';
  error: string | null;
}

/**
 * The job's last write: its ending and final progress, on a job still
 * active (a job cancelled meanwhile keeps its status, and takes the run's
 * progress). Then its working state goes, its usage account is closed and
 * the end announced (safe to repeat: see closeEndedJob).
 */
export async function endJob(jobId: string, owner: string, progress: JobProgress, ending: JobEnding): Promise<void> {
  const idle = { deferred: 0, nextRetryAt: null, continuationAt: null, leaseOwner: null, leaseUntil: null };
  const ended = await conditional(
    jobId,
    { status: { $in: activeStatuses } },
    { $set: { ...progress, ...idle, ...ending, finishedAt: now() } },
  );
  // Cancelled while this run worked: the cancel set status and time; the run's own counts complete it.
  if (!ended) await conditional(jobId, { leaseOwner: owner }, { $set: { ...progress, ...idle } });
  const job = ended ?? (await readJob(jobId));
  if (job) await closeEndedJob(job);
}

/** What follows a job's end, safe to run again (an attempt that died after ending the job finishes it): cleanup and the event. */
export async function closeEndedJob(job: ValidationJobDoc): Promise<void> {
  await ValidationWork.deleteMany({ jobId: job._id });
  await ValidationNote.deleteMany({ jobId: job._id });
  await closeUsage(job.workspaceId, jobUsageAccount(job._id));
  if (job.status === 'completed') await emitEvent(job.workspaceId, 'validation.job.completed', toJob(job), job._id);
  if (job.status === 'failed') await emitEvent(job.workspaceId, 'validation.job.failed', toJob(job), job._id);
}

/** Cancels a queued or running job: the run working on it stops within about a second, keeping what it concluded. */
export async function cancelJob(jobId: string): Promise<ValidationJobDoc | null> {
  const cancelled = await conditional(
    jobId,
    { status: { $in: activeStatuses } },
    { $set: { status: 'cancelled', finishedAt: now(), nextRetryAt: null, continuationAt: null, deferred: 0 } },
  );
  // Nobody works on it (queued, or waiting for a retry): clean up now; a run still working does it when it stops.
  if (cancelled && (!cancelled.leaseUntil || cancelled.leaseUntil.getTime() < nowMs())) await closeEndedJob(cancelled);
  return cancelled;
}

/** The job's attempts are spent: it fails, saying whether its workers died or its run kept failing. */
export async function giveUpJob(jobId: string, reason: GiveUpReason): Promise<void> {
  const error = reason.kind === 'interrupted' ? `the job was interrupted ${reason.starts} times` : 'the job failed unexpectedly';
  const failed = await conditional(
    jobId,
    { status: { $in: activeStatuses } },
    { $set: { status: 'failed', error, finishedAt: now(), leaseOwner: null, leaseUntil: null } },
  );
  if (failed) await closeEndedJob(failed);
}
