import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { emailStatuses } from '../../schema/validation.ts';

/**
 * What one address of a job came to: inserted once (its id is the job and
 * the address, so a job that runs again after a crash cannot store a second
 * one) before it is charged, and never changed. `order` numbers the results
 * of a job as they were concluded; a billable result is item `order` of the
 * job's credit usage account, so it is charged at most once. Kept 30 days
 * for GET /api/leads/validate/{id}/results, then pruned.
 */
const validationResultSchema = new Schema(
  {
    _id: { type: String, required: true },
    jobId: { type: String, required: true },
    workspaceId: { type: String, required: true },
    order: { type: Number, required: true },
    address: { type: String, required: true },
    /** The leads with this address, each with its email as read when the job started (a lead whose email changed since is left alone). */
    leads: { type: [{ _id: false, id: String, email: String }], default: [] },
    status: { type: String, enum: emailStatuses, required: true },
    reason: { type: String, required: true },
    detail: { type: String, default: null },
    provider: { type: String, default: null },
    isRole: { type: Boolean, default: false },
    isFree: { type: Boolean, default: false },
    mxHost: { type: String, default: null },
    tries: { type: Number, default: 0 },
    /** Conclusive and not reused: it spends a credit. */
    billable: { type: Boolean, default: false },
    reused: { type: Boolean, default: false },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
validationResultSchema.index({ jobId: 1, order: 1 });
validationResultSchema.index({ createdAt: 1 });
// A workspace's last result for an address: the cache a single check reuses, and what privacy requests find.
validationResultSchema.index({ workspaceId: 1, address: 1, createdAt: -1 });

export type ValidationResultDoc = InferRawDocTypeFromSchema<typeof validationResultSchema>;
export const ValidationResult = mongoose.model('ValidationResult', validationResultSchema, 'validation_results');
