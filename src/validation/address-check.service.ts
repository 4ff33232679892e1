import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import type { addressCheckResult, checkAddressOutput } from '../../schema/email-finder.ts';
import { billableStatuses } from '../../schema/validation.ts';
import { nowMs } from '../clock.ts';
import { settings } from '../config.ts';
import { creditsExhausted, getBalances } from '../credits/index.ts';
import { addressFacts } from '../email-address/address-facts.ts';
import { toJob } from './job-mapper.ts';
import { isActiveJob } from './run/job-lifecycle.ts';
import { storeAndQueueJob } from './validation.service.ts';
import { ValidationJob, type ValidationJobDoc } from './validation-job.model.ts';
import { ValidationResult, type ValidationResultDoc } from './validation-result.model.ts';
import type { WorkEntry } from './validation-work.model.ts';

const dayMs = 86_400_000;
const pollMs = 100;

/** The workspace's last conclusive result for the address within the cache window, from a job or a single check. */
async function cachedResult(workspaceId: string, address: string): Promise<ValidationResultDoc | null> {
  return ValidationResult.findOne({
    workspaceId,
    address,
    status: { $in: billableStatuses },
    createdAt: { $gte: new Date(nowMs() - settings().VALIDATION_CACHE_DAYS * dayMs) },
  })
    .sort({ createdAt: -1 })
    .lean<ValidationResultDoc>();
}

const toCheck = (doc: ValidationResultDoc): z.infer<typeof addressCheckResult> => ({
  email: doc.address,
  status: doc.status,
  reason: doc.reason,
  provider: doc.provider ?? null,
  is_role: doc.isRole,
  is_disposable: addressFacts(doc.address)?.isDisposable ?? false,
  checked_at: doc.createdAt.toISOString(),
});

/**
 * Checks one address now: a validation job of that one address (its retries, billing and stored result are a
 * job's), waited for up to VALIDATION_INLINE_WAIT_MS. Answers the result when the job ended in time, else the job
 * to poll. A conclusive result from the cache window is reused, unbilled; otherwise 402 without validation credits.
 */
export async function checkAddress(workspaceId: string, email: string): Promise<z.infer<typeof checkAddressOutput>> {
  const facts = addressFacts(email);
  const address = facts?.address ?? email.trim().toLowerCase();
  const cached = await cachedResult(workspaceId, address);
  if (!cached) {
    const balances = await getBalances(workspaceId);
    if (balances.validation < 1 && !balances.overage) throw creditsExhausted('validation', 1, balances.validation);
  }
  const entry: WorkEntry = {
    address,
    domain: facts?.domain ?? '',
    leads: [],
    ...(cached && { reuse: { status: cached.status, provider: cached.provider ?? null, isRole: cached.isRole, isFree: cached.isFree } }),
  };
  let job = await storeAndQueueJob(workspaceId, [entry], { force: false, skipped: 0 });
  const deadline = Date.now() + settings().VALIDATION_INLINE_WAIT_MS;
  while (isActiveJob(job.status) && Date.now() < deadline) {
    await sleep(pollMs);
    job = (await ValidationJob.findById(job._id).lean<ValidationJobDoc>()) ?? job;
  }
  const result = isActiveJob(job.status) ? null : await ValidationResult.findOne({ jobId: job._id }).lean<ValidationResultDoc>();
  return result ? { result: toCheck(result) } : { job: toJob(job) };
}
