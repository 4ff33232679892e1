import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { AgentStep, stepId, type AgentStepDoc } from '../agent-step.model.ts';
import type { ToolName } from './tool-specs.ts';

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text, as models send it. */
  arguments: string;
}

/** What the planner decided in a step: text and tool calls. */
export interface PlannerMessage {
  content: string | null;
  tool_calls: ToolCall[];
}

export interface ToolOutcome {
  tool_call_id: string;
  name: ToolName | string;
  /** The result (or `{ error }`) as JSON data; rendered for the model when it is read. */
  data: Record<string, unknown>;
}

export type Step =
  | {
      seq: number;
      kind: 'act';
      message: PlannerMessage;
      results: ToolOutcome[];
      plannerState: unknown;
      tokens: number;
      pages: number;
      leadsSaved: number;
    }
  | { seq: number; kind: 'reply'; answer: string };

const toStep = (doc: AgentStepDoc): Step =>
  doc.kind === 'reply'
    ? { seq: doc.seq, kind: 'reply', answer: String((doc.message as { content?: string } | null)?.content ?? '') }
    : {
        seq: doc.seq,
        kind: 'act',
        message: doc.message as PlannerMessage,
        results: doc.results as ToolOutcome[],
        plannerState: doc.plannerState,
        tokens: doc.tokens,
        pages: doc.pages,
        leadsSaved: doc.leadsSaved,
      };

/**
 * A run's recorded steps in order, each read by primary key (`<run>:<n>`),
 * 20 at a time: the `known` ones the run counts, then any recorded by a
 * worker that died before counting them.
 */
export async function loadSteps(runId: string, known: number): Promise<Step[]> {
  const steps: Step[] = [];
  for (let from = 0; from < known; from += 20) {
    const ids = Array.from({ length: Math.min(20, known - from) }, (_, i) => stepId(runId, from + i));
    const docs = await Promise.all(ids.map((id) => AgentStep.findById(id).lean<AgentStepDoc>()));
    for (const doc of docs) if (doc) steps.push(toStep(doc));
  }
  return [...steps, ...(await laterSteps(runId, steps.length))];
}

async function laterSteps(runId: string, from: number): Promise<Step[]> {
  const found: Step[] = [];
  for (let seq = from; ; seq++) {
    const doc = await AgentStep.findById(stepId(runId, seq)).lean<AgentStepDoc>();
    if (!doc) return found;
    found.push(toStep(doc));
  }
}

/**
 * Records step `seq`: false when it is already recorded (another worker
 * holds the run, or this one ran it before a crash): the caller stops.
 */
export async function recordStep(runId: string, step: Extract<Step, { kind: 'act' }>): Promise<boolean> {
  try {
    await AgentStep.create({ _id: stepId(runId, step.seq), runId, ...step });
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}
