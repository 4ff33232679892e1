import type { z } from 'zod';
import type { criteria } from '../../../schema/leads.ts';
import type { AgentRunDoc, Playbook } from '../agent-run.model.ts';
import type { PlannerMessage, Step } from './transcript.ts';

export type Criteria = z.infer<typeof criteria>;

/** Everything a planner reads to decide the next step. */
export interface PlanContext {
  run: AgentRunDoc;
  steps: Step[];
  /** The research profile's criteria, when the run has one. */
  criteria: Criteria | null;
  skills: Array<{ title: string; emoji: string; systemPrompt: string }>;
  playbook: Playbook;
  /** Custom columns the agent fills when a page answers them. */
  autoColumns: Array<{ key: string; label: string; description: string }>;
  outputSchema: Record<string, unknown> | null;
  budget: { pagesLeft: number; leadsLeft: number };
}

export interface Plan {
  message: PlannerMessage;
  /** Model tokens this decision used (prompt and completion). */
  tokens: number;
  /** The built-in researcher's state, recorded with the step so a worker taking over goes on from it. */
  plannerState?: unknown;
}

/** Decides each next step: the language model with tool calling, or the built-in researcher. */
export interface Planner {
  readonly usesModel: boolean;
  next(context: PlanContext): Promise<Plan>;
}
