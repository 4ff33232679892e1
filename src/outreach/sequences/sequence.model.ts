import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { threadModes } from '../../../schema/outreach/sequences.ts';

/** Sub-documents without ids of their own: a step is addressed by its position, a variant by its index in the step. */
const variantSchema = new Schema({ subject: { type: String, default: '' }, body_html: { type: String, required: true } }, { _id: false });

const stepSchema = new Schema(
  {
    subject: { type: String, default: '' },
    body_html: { type: String, required: true },
    wait_days: { type: Number, required: true },
    thread_mode: { type: String, enum: threadModes, required: true },
    variants: { type: [variantSchema], default: [] },
  },
  { _id: false },
);

/** A sequence: the steps a campaign sends each lead, in order; the engine reads it at send time, so edits reach steps not sent yet. */
const sequenceSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    brandId: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: null },
    steps: { type: [stepSchema], required: true },
  },
  { timestamps: true, versionKey: false },
);
// The list: a brand's (or the workspace's) sequences, newest first.
sequenceSchema.index({ workspaceId: 1, brandId: 1, createdAt: -1 });
sequenceSchema.index({ workspaceId: 1, createdAt: -1 });

export type SequenceDoc = InferRawDocTypeFromSchema<typeof sequenceSchema>;
export const Sequence = mongoose.model('Sequence', sequenceSchema, 'outreach_sequences');
