import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/**
 * One step of a run, inserted once and never changed: `_id` is
 * `<run>:<n>`, so two workers (or two replies) racing for the same step
 * cannot both record it. A step is what the planner decided (a model
 * message, or the built-in researcher's choice) with the results of its
 * tool calls, or the user's reply to a pause.
 */
const agentStepSchema = new Schema(
  {
    _id: { type: String, required: true },
    runId: { type: String, required: true },
    seq: { type: Number, required: true },
    kind: { type: String, enum: ['act', 'reply'], required: true },
    /** The planner's message: text and tool calls (OpenAI chat shape). */
    message: { type: Schema.Types.Mixed, default: null },
    /** Each tool call's result as the planner reads it next. */
    results: { type: Schema.Types.Mixed, default: [] },
    /** The built-in researcher's state after this step (its queue of searches and pages). */
    plannerState: { type: Schema.Types.Mixed, default: null },
    tokens: { type: Number, default: 0 },
    pages: { type: Number, default: 0 },
    leadsSaved: { type: Number, default: 0 },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false, minimize: false },
);

export type AgentStepDoc = InferRawDocTypeFromSchema<typeof agentStepSchema>;
export const AgentStep = mongoose.model('AgentStep', agentStepSchema, 'agent_steps');
export const stepId = (runId: string, seq: number) => `${runId}:${seq}`;
