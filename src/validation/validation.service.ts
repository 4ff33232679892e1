import { randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import type { z } from 'zod';
import type { validationJob } from '../../schema/validation.ts';

const validationJobSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    status: { type: String, default: 'queued' },
    source: { type: String, default: 'manual' },
    total: { type: Number, default: 0 },
    processed: { type: Number, default: 0 },
    billable: { type: Number, default: 0 },
    creditsCharged: { type: Number, default: 0 },
    counts: { type: Schema.Types.Mixed, default: {} },
    error: { type: String, default: null },
    finishedAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false, minimize: false },
);
validationJobSchema.index({ workspaceId: 1, createdAt: -1 });

type JobOut = z.infer<typeof validationJob>;
interface ValidationJobDoc {
  _id: string;
  status: JobOut['status'];
  source: JobOut['source'];
  total: number;
  processed: number;
  billable: number;
  creditsCharged: number;
  counts: Record<string, number>;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

const ValidationJob = mongoose.model<ValidationJobDoc>('ValidationJob', validationJobSchema, 'validation_jobs');

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
    error: doc.error,
    created_at: doc.createdAt.toISOString(),
    finished_at: doc.finishedAt?.toISOString() ?? null,
  }));
}
