import type { z } from 'zod';
import type { validationJob } from '../../schema/validation.ts';
import { ValidationJob, type ValidationJobDoc } from './validation-job.model.ts';

type JobOut = z.infer<typeof validationJob>;

export async function listValidationJobs(workspaceId: string): Promise<JobOut[]> {
  const docs = await ValidationJob.find({ workspaceId }).sort({ createdAt: -1, _id: -1 }).limit(100).lean<ValidationJobDoc[]>();
  return docs.map((doc) => ({
    id: doc._id,
    status: doc.status,
    source: doc.source,
    total: doc.total,
    processed: doc.processed,
    billable: doc.billable,
    credits_charged: doc.creditsCharged,
    counts: doc.counts,
    error: doc.error ?? null,
    created_at: doc.createdAt.toISOString(),
    finished_at: doc.finishedAt?.toISOString() ?? null,
  }));
}
