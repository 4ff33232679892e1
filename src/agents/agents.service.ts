import type { z } from 'zod';
import { agentRunJob } from './jobs/agent-run.job.ts';
import { enqueue, enqueueOnceAt, strandedBefore } from '../jobs/queue.ts';
import {
  finishedAgentRunStatuses,
  type agentRun,
  type agentRunWithArtifacts,
  type listAgentRunsInput,
  type replyToAgentRunInput,
  type startAgentRunInput,
  type startAgentRunOutput,
} from '../../schema/agents.ts';
import type { Principal } from '../auth/principal.ts';
import { brandFilter, brandForWrite } from '../brands/index.ts';
import { now } from '../clock.ts';
import { creditsExhausted, getBalances, openUsage } from '../credits/index.ts';
import { findOwned } from '../db/find-owned.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { compileJsonSchema } from '../json-schema/json-schema.ts';
import { leadsForEnrichment, getResearchProfile, recordProfileRun } from '../leads/index.ts';
import { fieldError } from '../errors/field-error.ts';
import { assertSkillsInWorkspace } from '../skills/index.ts';
import { AgentConversation, AgentRun, type AgentRunDoc } from './agent-run.model.ts';
import { AgentStep, stepId } from './agent-step.model.ts';
import { artifactsOf } from './artifacts/artifacts.service.ts';
import { toAgentRun } from './agent-run-mapper.ts';
import { cancelRun, usageAccount } from './run/run-lifecycle.ts';

type StartInput = z.infer<typeof startAgentRunInput>;
type Started = z.infer<typeof startAgentRunOutput>;
type RunOut = z.infer<typeof agentRun>;

/** Starts a run (202): checks what it names, then queues it. 402 when the workspace has no agent credits and overage is off. */
export async function startAgentRun(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  input: StartInput,
  parentRunId: string | null = null,
): Promise<Started> {
  const { workspaceId } = principal;
  if (input.output_schema) compileJsonSchema(input.output_schema, 'output_schema');
  const brandId = await brandForWrite(principal, input.brand_id);
  const [profile] = await Promise.all([
    input.profile_id ? getResearchProfile(workspaceId, input.profile_id) : null,
    assertSkillsInWorkspace(workspaceId, input.skill_ids ?? []),
  ]);
  const conversation = input.conversation_id ? await findOwned(AgentConversation, input.conversation_id, workspaceId) : null;
  if (input.conversation_id && !conversation) throw notFound('Conversation', 'conversation_id');
  const balances = await getBalances(workspaceId);
  if (balances.agent < 1 && !balances.overage) throw creditsExhausted('agent', 1, balances.agent);
  const leadIds = await enrichmentSelection(principal, input);

  const context = { ...(conversation?.context ?? {}), ...(input.context ?? {}) };
  const conversationId = conversation?._id ?? (await AgentConversation.create({ workspaceId, context })).id;
  if (conversation && input.context) await AgentConversation.updateOne({ _id: conversation._id }, { $set: { context } });
  const run = await AgentRun.create({
    workspaceId,
    brandId,
    conversationId,
    parentRunId,
    goal: input.goal,
    behavior: input.behavior,
    context,
    options: input.options ?? {},
    inherited: conversation?.playbook ?? { runs: [], sources: [] },
    outputSchemaJson: input.output_schema ? JSON.stringify(input.output_schema) : null,
    profileId: profile?.id ?? null,
    skillIds: input.skill_ids ?? [],
    leadIds,
  });
  await openUsage(workspaceId, usageAccount(run.id));
  if (profile) await recordProfileRun(profile.id, now());
  await enqueue(agentRunJob, { runId: run.id });
  return { run_id: run.id, conversation_id: conversationId, status: 'queued' };
}

/** An enrichment run's leads (400 naming `lead_ids` when it names none and no filter selects any); none for other runs. */
async function enrichmentSelection(principal: Pick<Principal, 'workspaceId' | 'brandId'>, input: StartInput): Promise<string[]> {
  if (input.behavior !== 'enrichment') {
    if (input.lead_ids || input.lead_filter)
      throw fieldError({ field: 'lead_ids', problem: 'lead_ids and lead_filter are for behavior "enrichment"' });
    return [];
  }
  if (!input.lead_ids && !input.lead_filter)
    throw fieldError({ field: 'lead_ids', problem: 'an enrichment run needs lead_ids (1–500) or lead_filter' });
  const ids = await leadsForEnrichment(principal.workspaceId, null, { lead_ids: input.lead_ids, filter: input.lead_filter });
  if (ids.length === 0) throw fieldError({ field: 'lead_filter', problem: 'selects no lead' });
  return ids;
}

export async function listAgentRuns(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  input: z.infer<typeof listAgentRunsInput>,
): Promise<RunOut[]> {
  const brandId = await brandFilter(principal, input.brand, 'credential');
  const docs = await AgentRun.find({ workspaceId: principal.workspaceId, ...(brandId && { brandId }) })
    .sort({ createdAt: -1, _id: -1 })
    .limit(input.limit)
    .lean<AgentRunDoc[]>();
  return docs.map(toAgentRun);
}

async function ownedRun(workspaceId: string, id: string): Promise<AgentRunDoc> {
  const doc = await findOwned(AgentRun, id, workspaceId);
  if (!doc) throw notFound('Agent run');
  return doc as AgentRunDoc;
}

export async function getAgentRun(workspaceId: string, id: string): Promise<z.infer<typeof agentRunWithArtifacts>> {
  const doc = await ownedRun(workspaceId, id);
  return { ...toAgentRun(doc), artifacts: await artifactsOf(doc) };
}

/** Cancels a queued, paused or working run (a working one stops between steps); a finished run is 409. */
export async function cancelAgentRun(workspaceId: string, id: string): Promise<RunOut> {
  const doc = await ownedRun(workspaceId, id);
  const cancelled = await cancelRun(doc, 'Cancelled by request.');
  if (!cancelled)
    throw new AppError('conflict', `The run has already ended (${(await ownedRun(workspaceId, id)).status})`, { status: doc.status });
  return toAgentRun(cancelled);
}

/**
 * A reply, by the run's state: a paused run continues with the answer
 * (`resumed`), exactly once however many replies race; a finished run gets
 * a follow-up run in its conversation; a working run is 409, unless
 * `interrupt`, which cancels it and starts a new run with the message.
 */
export async function replyToAgentRun(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  input: z.infer<typeof replyToAgentRunInput>,
): Promise<Started> {
  const run = await ownedRun(principal.workspaceId, input.id);
  if (run.status === 'paused') return resumeRun(run, input.message);
  if (!finishedAgentRunStatuses.includes(run.status)) {
    if (!input.interrupt) throw stillWorking(run.status);
    // Cancelled here, or it ended on its own meanwhile: either way the message starts the next run.
    await cancelRun(run, 'Interrupted by a new message.');
  }
  return startAgentRun(
    { workspaceId: principal.workspaceId, brandId: run.brandId },
    {
      goal: input.message,
      conversation_id: run.conversationId,
      behavior: run.behavior,
      options: run.options,
      ...(run.outputSchemaJson && { output_schema: JSON.parse(run.outputSchemaJson) }),
      ...(run.profileId && { profile_id: run.profileId }),
      skill_ids: run.skillIds,
    },
    run._id,
  );
}

const stillWorking = (status: string) =>
  new AppError('conflict', `The run is still working (${status}): reply with interrupt: true to stop it and start a new run`, { status });

/**
 * The answer is stored as the run's next step, whose id is taken once: of
 * two replies racing, the second finds the step taken and gets 409.
 */
async function resumeRun(run: AgentRunDoc, message: string): Promise<Started> {
  try {
    await AgentStep.create({
      _id: stepId(run._id, run.steps),
      runId: run._id,
      seq: run.steps,
      kind: 'reply',
      message: { role: 'user', content: message },
    });
  } catch (error) {
    if (isDuplicateKey(error)) throw stillWorking('running');
    throw error;
  }
  const resumed = await AgentRun.findOneAndUpdate(
    { _id: run._id, status: 'paused' },
    { $set: { status: 'running', resultSummary: null, steps: run.steps + 1 } },
  );
  // Cancelled between the answer and now: the answer stays in the transcript, unused.
  if (!resumed) throw stillWorking('cancelled');
  await enqueue(agentRunJob, { runId: run._id });
  return { run_id: run._id, conversation_id: run.conversationId, status: 'resumed' };
}

/**
 * Queues again the runs waiting for a worker (queued, or resumed by a reply) since before strandedBefore with no job:
 * the process of their request died between recording them and queuing their job. Once per run: a run whose job is
 * queued or under way keeps it.
 */
export async function requeueStrandedRuns(): Promise<void> {
  const waiting = { status: { $in: ['queued', 'planning', 'running'] as const }, updatedAt: { $lt: strandedBefore() } };
  const runs = await AgentRun.find(waiting, { _id: 1 }).lean<Array<{ _id: string }>>();
  for (const { _id } of runs) await enqueueOnceAt(agentRunJob, new Date(), { runId: _id }, ['runId']);
}
