import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/** A file a finished run produced, kept whole (a run saves at most 500 leads). `_id` is `<run>:<name>`-derived, so a run that ends twice writes each file once. */
const agentArtifactSchema = new Schema(
  {
    _id: { type: String, required: true },
    runId: { type: String, required: true, index: true },
    workspaceId: { type: String, required: true },
    name: { type: String, required: true },
    mimeType: { type: String, required: true },
    rowCount: { type: Number, required: true },
    sizeBytes: { type: Number, required: true },
    /** JSON text: arrays in arrays are beyond what both stores hold, and preview rows may hold anything. */
    previewJson: { type: String, required: true },
    content: { type: String, required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false, minimize: false },
);

// A workspace's files, which an erasure reads.
agentArtifactSchema.index({ workspaceId: 1 });

export type AgentArtifactDoc = InferRawDocTypeFromSchema<typeof agentArtifactSchema>;
export const AgentArtifact = mongoose.model('AgentArtifact', agentArtifactSchema, 'agent_artifacts');
