import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { agentBehaviors, agentRunStatuses } from '../../schema/agents.ts';

/**
 * One document per run, written by primary key: when it starts, after each
 * step (its counters) and when it ends. The transcript is in agent_steps,
 * one inserted document per step.
 */
const agentRunSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    brandId: { type: String, required: true },
    conversationId: { type: String, required: true },
    parentRunId: { type: String, default: null },
    goal: { type: String, required: true },
    behavior: { type: String, enum: agentBehaviors, default: 'lead_generation' },
    status: { type: String, enum: agentRunStatuses, default: 'queued' },
    resultSummary: { type: String, default: null },
    tokensUsed: { type: Number, default: 0 },
    leadsSaved: { type: Number, default: 0 },
    pagesFetched: { type: Number, default: 0 },
    creditsCharged: { type: Number, default: 0 },
    overageCredits: { type: Number, default: 0 },
    error: { type: String, default: null },
    profileId: { type: String, default: null },
    skillIds: { type: [String], default: [] },
    /** An enrichment run's leads, resolved when it started. */
    leadIds: { type: [String], default: [] },
    /** The conversation's context merged with the run's own, as the run started. */
    context: { type: Schema.Types.Mixed, default: {} },
    options: { type: Schema.Types.Mixed, default: {} },
    /** The conversation's playbook as the run started: what it inherits, the same for every step. */
    inherited: { type: Schema.Types.Mixed, default: { runs: [], sources: [] } },
    /** JSON text: a JSON Schema's keys may start with `$`, which a document cannot hold. */
    outputSchemaJson: { type: String, default: null },
    /** Steps recorded so far (agent_steps `<run>:<n>` for n below it). */
    steps: { type: Number, default: 0 },
    startedAt: { type: Date, default: null },
    finishedAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false, minimize: false },
);
agentRunSchema.index({ workspaceId: 1, createdAt: -1 });
agentRunSchema.index({ conversationId: 1, createdAt: 1 });

export type AgentRunDoc = InferRawDocTypeFromSchema<typeof agentRunSchema> & {
  context: Record<string, unknown>;
  options: AgentRunOptions;
  inherited: Playbook;
};
export interface AgentRunOptions {
  max_leads?: number;
  max_pages?: number;
  max_tokens?: number;
}
export const AgentRun = mongoose.model('AgentRun', agentRunSchema, 'agent_runs');

/**
 * A conversation: the runs that follow up one another, with what they
 * share. Its playbook grows as runs end: each run's goal and summary, and
 * the sites that gave leads or nothing.
 */
const conversationSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    context: { type: Schema.Types.Mixed, default: {} },
    playbook: { type: Schema.Types.Mixed, default: { runs: [], sources: [] } },
    /** Counts the playbook's changes: each is written only over the revision it was made from. */
    playbookRevision: { type: Number, default: 0 },
  },
  { timestamps: true, versionKey: false, minimize: false },
);

export interface Playbook {
  runs: Array<{ runId: string; goal: string; summary: string | null; leadsSaved: number }>;
  /** Sites visited and the leads each gave (0: nothing found), as a list: host names hold dots, which document keys must not. */
  sources: Array<{ host: string; leads: number }>;
}
export type ConversationDoc = InferRawDocTypeFromSchema<typeof conversationSchema> & {
  context: Record<string, unknown>;
  playbook: Playbook;
};
export const AgentConversation = mongoose.model('AgentConversation', conversationSchema, 'agent_conversations');
