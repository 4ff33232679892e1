import { settings } from '../../config.ts';
import { AgentRun, type AgentRunDoc } from '../agent-run.model.ts';
import { configuredModel } from '../../llm/configured-model.ts';
import { listFields, getResearchProfile } from '../../leads/index.ts';
import { skillPrompts } from '../../skills/index.ts';
import { chargeStep } from './step-charge.ts';
import { decideAfterStep, finishProblem, stopReason } from './step-outcome.ts';
import { modelPlanner } from './model-planner.ts';
import type { PlanContext, Planner } from './planner.ts';
import { enricherPlanner } from './enricher/enricher.ts';
import { researcherPlanner } from './researcher/researcher.ts';
import { beginRun, closeEndedRun, finishRun, followUpRun, isFinished, markRunning, recordSources } from './run-lifecycle.ts';
import { Toolbox, type StepTally } from './toolbox.ts';
import { loadSteps, recordStep, type Step } from './transcript.ts';

const searchMissing =
  'Web search is not configured (SEARCH_URL is unset) and no language model is configured: the built-in researcher finds companies through search, so the run stopped before its first step. Set SEARCH_URL to a SearXNG-compatible API.';
const defaults = { max_leads: 50, max_pages: 60, max_tokens: 200_000 };

/**
 * Works on a run step by step until it finishes, pauses or is cancelled.
 * Each step (the planner's decision and its tools' results) is recorded
 * once before the next begins, so a worker taking over after a crash goes
 * on from the last recorded step; a step whose worker died is done again,
 * and its leads (ids derived from the run and the person) are not stored
 * twice, nor is it charged twice (one charge per step number).
 */
export async function runAgent(runId: string): Promise<void> {
  const initial = await AgentRun.findById(runId).lean<AgentRunDoc>();
  if (!initial) return;
  // A worker that died right after ending or pausing the run left its event (and its account's closing) to this one.
  if (isFinished(initial.status) || initial.status === 'paused') return followUpRun(initial);
  await beginRun(runId);
  const steps = await loadSteps(runId, initial.steps);
  const context = await planContext(initial, steps);
  const model = configuredModel();
  // Enrichment matches stored people on their companies' pages: its own planner, with a model or without.
  const planner: Planner = initial.behavior === 'enrichment' ? enricherPlanner() : model ? modelPlanner(model) : researcherPlanner();
  // The built-in researcher finds companies only through search: without it, say so before spending a step.
  if (!model && initial.behavior !== 'enrichment' && !settings().SEARCH_URL && steps.length === 0)
    return void (await finishRun(runId, 'failed', searchMissing, { error: 'search_not_configured' }));
  const toolbox = new Toolbox(initial, fetchedUrls(steps));

  // A worker that died between recording a step and acting on its ask_user or finish left that to this one.
  const last = steps.at(-1);
  if (last?.kind === 'act' && (await decideAfterStep(context, last, planner)) === 'stop') return;

  for (;;) {
    const run = await AgentRun.findById(runId).lean<AgentRunDoc>();
    if (!run || run.status === 'paused') return;
    if (isFinished(run.status)) return void (await closeEndedRun(run, true)); // cancelled mid-step: its files get that step's leads
    context.run = run;
    const limits = { ...defaults, ...run.options };
    const totals = totalsOf(context.steps);
    context.budget = { pagesLeft: limits.max_pages - totals.pages, leadsLeft: limits.max_leads - totals.leadsSaved };
    const stop = await stopReason(run, totals, limits);
    if (stop) return void (await finishRun(runId, 'completed', `${stop.summary} ${tallyText(totals)}`, { error: stop.error }));

    const plan = await planner.next(context);
    await markRunning(runId);
    const seq = context.steps.length;
    const tally: StepTally = { pages: 0, leadsSaved: 0, leadsByHost: {}, limitReached: false };
    const results = await toolbox.executeAll(plan.message.tool_calls, context.budget, tally);
    for (const [index, call] of plan.message.tool_calls.entries()) {
      const problem = call.name === 'finish' ? finishProblem(context, planner, call.arguments) : null;
      if (problem) results[index] = { ...results[index]!, data: { error: problem } };
    }
    const step: Extract<Step, { kind: 'act' }> = {
      seq,
      kind: 'act',
      message: plan.message,
      results,
      plannerState: plan.plannerState ?? null,
      tokens: plan.tokens,
      pages: tally.pages,
      leadsSaved: tally.leadsSaved,
    };

    const charge = await chargeStep(run, seq, plan.tokens, tally.pages);
    if (charge === 'account-closed') return void (await closeEndedRun(run, true)); // cancelled meanwhile: its files get this step's leads
    if (!(await recordStep(runId, step))) return; // another worker recorded this step: it holds the run
    context.steps.push(step);
    const after = totalsOf(context.steps);
    await AgentRun.updateOne(
      { _id: runId },
      {
        $set: {
          steps: seq + 1,
          tokensUsed: after.tokens,
          pagesFetched: after.pages,
          leadsSaved: after.leadsSaved,
          creditsCharged: charge.charged,
          overageCredits: charge.overage,
        },
      },
    );
    await recordSources(run.conversationId, tally.leadsByHost);
    if (tally.limitReached)
      return void (await finishRun(runId, 'completed', `Stopped: the plan's lead limit is reached. ${tallyText(after)}`, {
        error: 'lead_limit',
      }));
    if (charge.exhausted)
      return void (await finishRun(runId, 'completed', `Stopped: agent credits ran out. ${tallyText(after)}`, {
        error: 'insufficient_credits',
      }));
    if ((await decideAfterStep(context, step, planner)) === 'stop') return;
  }
}

export const totalsOf = (steps: Step[]) =>
  steps.reduce(
    (sum, step) =>
      step.kind === 'act'
        ? { tokens: sum.tokens + step.tokens, pages: sum.pages + step.pages, leadsSaved: sum.leadsSaved + step.leadsSaved }
        : sum,
    {
      tokens: 0,
      pages: 0,
      leadsSaved: 0,
    },
  );

export const tallyText = (totals: { pages: number; leadsSaved: number }) =>
  `Saved ${totals.leadsSaved} lead${totals.leadsSaved === 1 ? '' : 's'} from ${totals.pages} page${totals.pages === 1 ? '' : 's'}.`;

/** URLs fetched in earlier steps: the sources `save_leads` accepts. */
function fetchedUrls(steps: Step[]): Set<string> {
  const urls = new Set<string>();
  for (const step of steps) {
    if (step.kind !== 'act') continue;
    for (const outcome of step.results)
      if (typeof outcome.data.url === 'string' && !outcome.data.error && outcome.name !== 'web_search') urls.add(outcome.data.url);
  }
  return urls;
}

async function planContext(run: AgentRunDoc, steps: Step[]): Promise<PlanContext> {
  const [profile, skills, fields] = await Promise.all([
    run.profileId ? getResearchProfile(run.workspaceId, run.profileId).catch(() => null) : null,
    skillPrompts(run.workspaceId, run.skillIds).catch(() => []),
    listFields(run.workspaceId),
  ]);
  return {
    run,
    steps,
    criteria: profile?.criteria ?? null,
    skills,
    playbook: run.inherited ?? { runs: [], sources: [] },
    autoColumns: fields.filter((field) => field.auto_research).map(({ key, label, description }) => ({ key, label, description })),
    outputSchema: run.outputSchemaJson ? JSON.parse(run.outputSchemaJson) : null,
    budget: { pagesLeft: 0, leadsLeft: 0 },
  };
}
