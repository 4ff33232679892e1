import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { validationJob } from '../../schema/validation.ts';

const validationJobSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    status: { type: String, enum: validationJob.shape.status.options, default: 'queued' },
    source: { type: String, enum: validationJob.shape.source.options, default: 'manual' },
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

/** `counts` holds the results so far by email_status (Mixed in the schema). */
export type ValidationJobDoc = Omit<InferRawDocTypeFromSchema<typeof validationJobSchema>, 'counts'> & { counts: Record<string, number> };
export const ValidationJob = mongoose.model('ValidationJob', validationJobSchema, 'validation_jobs');
