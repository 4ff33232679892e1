import type { z } from 'zod';
import { emailStatuses, type validationJob, type validationResult } from '../../schema/validation.ts';
import type { ValidationJobDoc } from './validation-job.model.ts';
import type { ValidationResultDoc } from './validation-result.model.ts';

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

/** A job as the API and its events show it, with one count for every status. */
export function toJob(doc: ValidationJobDoc): z.infer<typeof validationJob> {
  return {
    id: doc._id,
    status: doc.status,
    source: doc.source,
    total: doc.total,
    processed: doc.processed,
    billable: doc.billable,
    credits_charged: doc.creditsCharged,
    overage_credits: doc.overageCredits,
    counts: Object.fromEntries(emailStatuses.map((status) => [status, doc.counts?.[status] ?? 0])) as Record<
      (typeof emailStatuses)[number],
      number
    >,
    deferred: doc.deferred,
    reused: doc.reused,
    skipped: doc.skipped,
    error: doc.error ?? null,
    next_retry_at: iso(doc.nextRetryAt),
    created_at: doc.createdAt.toISOString(),
    started_at: iso(doc.startedAt),
    finished_at: iso(doc.finishedAt),
  };
}

export function toResult(doc: ValidationResultDoc): z.infer<typeof validationResult> {
  return {
    email: doc.address,
    lead_ids: doc.leads.map((lead) => lead.id!),
    status: doc.status,
    reason: doc.reason,
    detail: doc.detail ?? null,
    provider: doc.provider ?? null,
    is_role: doc.isRole,
    is_free: doc.isFree,
    mx_host: doc.mxHost ?? null,
    tries: doc.tries,
    billed: doc.billable,
    checked_at: doc.createdAt.toISOString(),
  };
}
