import { compileJsonSchema, describeSchemaErrors } from '../../json-schema/json-schema.ts';
import { getBalances } from '../../credits/index.ts';
import type { AgentRunDoc } from '../agent-run.model.ts';
import type { PlanContext, Planner } from './planner.ts';
import { finishRun, pauseRun } from './run-lifecycle.ts';
import { parseArguments, toolArguments } from './tool-specs.ts';
import type { Step } from './transcript.ts';

const noModelNote = 'No language model is configured (OPENAI_BASE_URL, OPENAI_MODEL): the built-in researcher did this run.';

/**
 * Acts on a recorded step's `ask_user` (pause) or `finish` (end, when its
 * result conforms to the output schema). A result that does not conform
 * goes back to the model once, with the errors; the second such result
 * fails the run with them. Idempotent: a worker taking over repeats it.
 */
export async function decideAfterStep(
  context: PlanContext,
  step: Extract<Step, { kind: 'act' }>,
  planner: Planner,
): Promise<'continue' | 'stop'> {
  const runId = context.run._id;
  const ask = step.message.tool_calls.find((call) => call.name === 'ask_user');
  if (ask) {
    const parsed = toolArguments.ask_user.safeParse(parseArguments(ask.arguments));
    if (parsed.success) return (await pauseRun(runId, parsed.data.question), 'stop');
  }
  const finish = step.message.tool_calls.find((call) => call.name === 'finish');
  if (!finish) return 'continue';
  const parsed = toolArguments.finish.safeParse(parseArguments(finish.arguments));
  if (!parsed.success) return 'continue'; // the toolbox answered the model with the argument errors
  const rejected = step.results.find((outcome) => outcome.name === 'finish' && typeof outcome.data.error === 'string');
  if (rejected) {
    const rejections = context.steps.filter(
      (s) => s.kind === 'act' && s.results.some((r) => r.name === 'finish' && typeof r.data.error === 'string'),
    ).length;
    if (rejections < 2) return 'continue';
    await finishRun(runId, 'failed', `The run failed: ${String(rejected.data.error)}`, { error: String(rejected.data.error) });
    return 'stop';
  }
  const structured = context.outputSchema && planner.usesModel;
  const summary =
    planner.usesModel || context.run.behavior === 'enrichment' ? parsed.data.summary : `${noModelNote} ${parsed.data.summary}`;
  const note =
    context.outputSchema && !planner.usesModel ? ' No structured result: producing one for output_schema needs a language model.' : '';
  await finishRun(runId, 'completed', summary + note, { result: structured ? parsed.data.result : undefined });
  return 'stop';
}

/** For a `finish` call of a model run with an output schema: why its result does not conform, or null. */
export function finishProblem(context: PlanContext, planner: Planner, argumentsJson: string): string | null {
  if (!context.outputSchema || !planner.usesModel) return null;
  const parsed = toolArguments.finish.safeParse(parseArguments(argumentsJson));
  if (!parsed.success) return null;
  const problem = resultProblem(context.outputSchema, parsed.data.result);
  return problem && `result does not conform to output_schema: ${problem}. Call finish again with a result that conforms.`;
}

/** Why a result does not conform to the schema, or null when it does. */
export function resultProblem(schema: Record<string, unknown>, result: unknown): string | null {
  const validate = compileJsonSchema(schema, 'output_schema');
  if (result === undefined) return 'finish carried no result';
  return validate(result) ? null : describeSchemaErrors(validate);
}

/** Why the run must end before its next step, or null. */
export async function stopReason(
  run: AgentRunDoc,
  totals: { tokens: number; pages: number; leadsSaved: number },
  limits: { max_leads: number; max_pages: number; max_tokens: number },
) {
  if (totals.leadsSaved >= limits.max_leads) return { summary: `Stopped at max_leads (${limits.max_leads}).`, error: null };
  if (totals.pages >= limits.max_pages) return { summary: `Stopped at max_pages (${limits.max_pages}).`, error: null };
  if (totals.tokens >= limits.max_tokens) return { summary: `Stopped at max_tokens (${limits.max_tokens}).`, error: null };
  const balances = await getBalances(run.workspaceId);
  if (balances.agent < 1 && !balances.overage) return { summary: 'Stopped: agent credits ran out.', error: 'insufficient_credits' };
  return null;
}
