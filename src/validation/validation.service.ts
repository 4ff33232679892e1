import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { enqueue, enqueueOnceAt, strandedBefore } from '../jobs/queue.ts';
import {
  billableStatuses,
  type EmailStatus,
  type listValidationResultsInput,
  type startValidationInput,
  type validationJob,
  type validationResult,
} from '../../schema/validation.ts';
import type { Principal } from '../auth/principal.ts';
import { nowMs } from '../clock.ts';
import { settings } from '../config.ts';
import { creditsExhausted, getBalances } from '../credits/index.ts';
import { findOwned } from '../db/find-owned.ts';
import { defineRetentionRule } from '../db/retention.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { leadsToValidate, type LeadToValidate } from '../leads/index.ts';
import { addressFacts } from '../email-address/address-facts.ts';
import { toJob, toResult } from './job-mapper.ts';
import { validationRunJob } from './jobs/validation-run.job.ts';
import { cancelJob, isActiveJob } from './run/job-lifecycle.ts';
import { ValidationJob, type ValidationJobDoc } from './validation-job.model.ts';
import { ValidationResult, type ValidationResultDoc } from './validation-result.model.ts';
import { ValidationNote, ValidationWork, type WorkEntry } from './validation-work.model.ts';

type JobOut = z.infer<typeof validationJob>;

/** Entries per stored work-list chunk. */
const chunkSize = 500;
const dayMs = 86_400_000;
/** How long per-address results are kept. */
export const resultRetentionDays = 30;

/** A lead's result still in the cache window, to reuse unbilled instead of checking again. */
function freshResult(lead: LeadToValidate, cacheDays: number): WorkEntry['reuse'] {
  const { emailStatus, emailValidatedAt } = lead;
  if (!emailStatus || !billableStatuses.includes(emailStatus as EmailStatus) || !emailValidatedAt) return undefined;
  if (nowMs() - emailValidatedAt.getTime() > cacheDays * dayMs) return undefined;
  return { status: emailStatus, provider: lead.emailProvider, isRole: lead.emailIsRole ?? false, isFree: lead.emailIsFree ?? false };
}

/** The job's work list: one entry per distinct address (its leads together), by domain; leads with no email are skipped. */
function workList(leads: LeadToValidate[], force: boolean): { entries: WorkEntry[]; noEmail: number } {
  const byAddress = new Map<string, WorkEntry>();
  let noEmail = 0;
  for (const lead of leads) {
    const email = lead.email?.trim();
    if (!email) {
      noEmail += 1;
      continue;
    }
    const facts = addressFacts(email);
    const address = facts?.address ?? email.toLowerCase();
    const reuse = force ? undefined : freshResult(lead, settings().VALIDATION_CACHE_DAYS);
    const known = byAddress.get(address);
    if (!known)
      byAddress.set(address, {
        address,
        domain: facts?.domain ?? '',
        leads: [{ id: lead.id, email: lead.email! }],
        ...(reuse && { reuse }),
      });
    else {
      known.leads.push({ id: lead.id, email: lead.email! });
      // Reused only when every lead with the address has that fresh result.
      if (!reuse) delete known.reuse;
    }
  }
  const entries = [...byAddress.values()].sort((a, b) =>
    a.domain === b.domain ? (a.address < b.address ? -1 : 1) : a.domain < b.domain ? -1 : 1,
  );
  return { entries, noEmail };
}

/**
 * Starts a validation job for the selected leads: 402
 * validation_credits_exhausted when the workspace has no validation credits
 * and overage is off (nothing is queued). The work list is stored with the
 * job, then the job is queued for a worker.
 */
export async function startValidation(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  input: z.infer<typeof startValidationInput>,
): Promise<JobOut> {
  const { workspaceId } = principal;
  // The leads are read while the balance is checked; a refusal for credits still comes before any about them.
  const reading = leadsToValidate(principal, input);
  reading.catch(() => undefined);
  const balances = await getBalances(workspaceId);
  if (balances.validation < 1 && !balances.overage) throw creditsExhausted('validation', 1, balances.validation);
  const { leads, missing } = await reading;
  const { entries, noEmail } = workList(leads, input.force);
  return toJob(await storeAndQueueJob(workspaceId, entries, { force: input.force, skipped: missing + noEmail }));
}

/** Stores a job with its work list, then queues it for a worker: never a job no worker will take, nor a work list without its job. */
export async function storeAndQueueJob(
  workspaceId: string,
  entries: WorkEntry[],
  options: { force: boolean; skipped: number },
): Promise<ValidationJobDoc> {
  const jobId = randomUUID();
  const chunks = Math.ceil(entries.length / chunkSize);
  try {
    await ValidationWork.insertMany(
      Array.from({ length: chunks }, (_, n) => ({
        _id: `${jobId}:${n}`,
        jobId,
        entries: JSON.stringify(entries.slice(n * chunkSize, (n + 1) * chunkSize)),
      })),
    );
    const job = await ValidationJob.create({ _id: jobId, workspaceId, source: 'manual', ...options, total: entries.length, chunks });
    await enqueue(validationRunJob, { jobId });
    return job.toObject() as ValidationJobDoc;
  } catch (error) {
    await ValidationJob.deleteOne({ _id: jobId });
    await ValidationWork.deleteMany({ jobId });
    throw error;
  }
}

export async function listValidationJobs(workspaceId: string): Promise<JobOut[]> {
  const docs = await ValidationJob.find({ workspaceId }).sort({ createdAt: -1, _id: -1 }).limit(100).lean<ValidationJobDoc[]>();
  return docs.map(toJob);
}

async function ownedJob(workspaceId: string, id: string): Promise<ValidationJobDoc> {
  const job = (await findOwned(ValidationJob, id, workspaceId)) as ValidationJobDoc | null;
  if (!job) throw notFound('Validation job');
  return job;
}

export const getValidationJob = async (workspaceId: string, id: string): Promise<JobOut> => toJob(await ownedJob(workspaceId, id));

/** Cancels a queued or running job (409 once it has ended); what it concluded stays. */
export async function cancelValidationJob(workspaceId: string, id: string): Promise<JobOut> {
  const ended = (status: string) => new AppError('conflict', `The validation job has already ended: ${status}`, { status });
  const job = await ownedJob(workspaceId, id);
  if (!isActiveJob(job.status)) throw ended(job.status);
  const cancelled = await cancelJob(id);
  if (!cancelled) throw ended((await ownedJob(workspaceId, id)).status);
  return toJob(cancelled);
}

export async function listValidationResults(
  workspaceId: string,
  input: z.infer<typeof listValidationResultsInput>,
): Promise<{ results: Array<z.infer<typeof validationResult>>; total: number }> {
  await ownedJob(workspaceId, input.id);
  const filter = { jobId: input.id, ...(input.status && { status: input.status }) };
  const [docs, total] = await Promise.all([
    ValidationResult.find(filter).sort({ order: 1 }).skip(input.offset).limit(input.limit).lean<ValidationResultDoc[]>(),
    ValidationResult.countDocuments(filter),
  ]);
  return { results: docs.map(toResult), total };
}

/** Results past their keeping time, and working state older than any job runs (left by a run that died), go. */
export async function pruneValidationRecords(): Promise<void> {
  await ValidationResult.deleteMany({ createdAt: { $lt: new Date(nowMs() - resultRetentionDays * dayMs) } });
  const stale = { createdAt: { $lt: new Date(nowMs() - 7 * dayMs) } };
  await ValidationWork.deleteMany(stale);
  await ValidationNote.deleteMany(stale);
}

export const validationRetention = defineRetentionRule({
  records: 'validation results and working state',
  everyMs: 60 * 60_000,
  prune: pruneValidationRecords,
});

/**
 * Queues again the validation jobs queued since before strandedBefore with no background job: the process of their
 * request died between saving the job and queuing it (a job once started keeps a background job, or its
 * continuation, until it ends). Once per job.
 */
export async function requeueStrandedValidationJobs(): Promise<void> {
  const jobs = await ValidationJob.find({ status: 'queued', updatedAt: { $lt: strandedBefore() } }, { _id: 1 }).lean<
    Array<{ _id: string }>
  >();
  for (const { _id } of jobs) await enqueueOnceAt(validationRunJob, new Date(), { jobId: _id }, ['jobId']);
}

/** The workspace's stored results for an address (a privacy request), newest first. */
export async function validationResultsFor(workspaceId: string, address: string): Promise<Array<z.infer<typeof validationResult>>> {
  const docs = await ValidationResult.find({ workspaceId, address: address.trim().toLowerCase() })
    .sort({ createdAt: -1 })
    .lean<ValidationResultDoc[]>();
  return docs.map(toResult);
}

/** Deletes the workspace's results for an address (an erasure: jobs keep their counts); answers how many. */
export async function eraseValidationResults(workspaceId: string, address: string): Promise<number> {
  const { deletedCount } = await ValidationResult.deleteMany({ workspaceId, address: address.trim().toLowerCase() });
  return deletedCount;
}
