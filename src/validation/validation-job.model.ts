import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { validationJob, type EmailStatus } from '../../schema/validation.ts';

/**
 * One document per job, written when it starts, about once a second while
 * it runs (progress and the worker's lease) and when it ends: a primary-key
 * write. What each address came to is in validation_results.
 */
const validationJobSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    status: { type: String, enum: validationJob.shape.status.options, default: 'queued' },
    source: { type: String, enum: validationJob.shape.source.options, default: 'manual' },
    /** Check again addresses with a result in the cache window. */
    force: { type: Boolean, default: false },
    total: { type: Number, default: 0 },
    skipped: { type: Number, default: 0 },
    /** Work-list chunks stored for the job (validation_scratch `<id>:work:<n>`). */
    chunks: { type: Number, default: 0 },
    processed: { type: Number, default: 0 },
    billable: { type: Number, default: 0 },
    creditsCharged: { type: Number, default: 0 },
    overageCredits: { type: Number, default: 0 },
    counts: { type: Schema.Types.Mixed, default: {} },
    deferred: { type: Number, default: 0 },
    reused: { type: Number, default: 0 },
    /** Results numbered below this were settled (charged and written to their leads) by the last progress write. */
    settledThrough: { type: Number, default: 0 },
    error: { type: String, default: null },
    /** While addresses are deferred: when the earliest is asked again (shown). */
    nextRetryAt: { type: Date, default: null },
    /** While no run works on the job: the time its scheduled continuation was given, the only run that may take it. */
    continuationAt: { type: Date, default: null },
    startedAt: { type: Date, default: null },
    finishedAt: { type: Date, default: null },
    /** The worker run that holds the job, and until when: one run works on a job at a time. */
    leaseOwner: { type: String, default: null },
    leaseUntil: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false, minimize: false },
);
validationJobSchema.index({ workspaceId: 1, createdAt: -1 });

/** `counts` holds the results so far by email_status (Mixed in the schema). */
export type ValidationJobDoc = Omit<InferRawDocTypeFromSchema<typeof validationJobSchema>, 'counts'> & {
  counts: Partial<Record<EmailStatus, number>>;
};
export const ValidationJob = mongoose.model('ValidationJob', validationJobSchema, 'validation_jobs');
