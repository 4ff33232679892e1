import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/**
 * A running job's working state, inserted and never changed, removed when
 * the job ends, so both collections stay as small as the work in progress.
 *
 * validation_work: the job's work list in chunks (`<job>:<n>`), stored when
 * the job is created and read back by primary key. A chunk's entries are
 * one JSON text: a store reads and writes one large text far faster than as
 * many nested documents.
 */
const validationWorkSchema = new Schema(
  {
    _id: { type: String, required: true },
    jobId: { type: String, required: true },
    /** WorkEntry[] as JSON. */
    entries: { type: String, required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
validationWorkSchema.index({ jobId: 1 });
validationWorkSchema.index({ createdAt: 1 });

/** One address of a job's work list, with the leads that have it. */
export interface WorkEntry {
  /** The address, lower-cased (the raw text when it does not parse). */
  address: string;
  /** Its domain; empty when the address does not parse. */
  domain: string;
  leads: Array<{ id: string; email: string }>;
  /** A conclusive result from the cache window, reused unbilled. */
  reuse?: { status: string; provider: string | null; isRole: boolean; isFree: boolean };
}

export type ValidationWorkDoc = InferRawDocTypeFromSchema<typeof validationWorkSchema>;
export const ValidationWork = mongoose.model('ValidationWork', validationWorkSchema, 'validation_work');

/**
 * validation_notes: what a job learnt that its later tries need, small:
 * - `catch_all`: a domain's answer for a made-up address (`<job>:catch_all:<domain>`), so it is asked once a job;
 * - `retry`: one temporary answer for an address (`<job>:retry:<address>:<try>`), so its tries and their backoff
 *   survive a worker that dies.
 */
const validationNoteSchema = new Schema(
  {
    _id: { type: String, required: true },
    jobId: { type: String, required: true },
    kind: { type: String, enum: ['catch_all', 'retry'], required: true },
    /** `catch_all`: the domain and its answer. */
    domain: { type: String, default: null },
    catchAll: { type: Boolean, default: null },
    /** `retry`: the address and what it was answered. */
    address: { type: String, default: null },
    reason: { type: String, default: null },
    /** When it was answered (the service's clock), for the backoff. */
    at: { type: Date, default: null },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
validationNoteSchema.index({ jobId: 1 });
validationNoteSchema.index({ createdAt: 1 });

export type ValidationNoteDoc = InferRawDocTypeFromSchema<typeof validationNoteSchema>;
export const ValidationNote = mongoose.model('ValidationNote', validationNoteSchema, 'validation_notes');
