import { finishedAgentRunStatuses, type AgentRunStatus } from '../../../schema/agents.ts';
import { now } from '../../clock.ts';
import { closeUsage, usageOf } from '../../credits/index.ts';
import { emitEvent } from '../../events/events.service.ts';
import { AgentConversation, AgentRun, type AgentRunDoc, type ConversationDoc, type Playbook } from '../agent-run.model.ts';
import { toAgentRun } from '../agent-run-mapper.ts';
import { writeArtifacts } from '../artifacts/artifacts.service.ts';

/** The credit usage account of a run: each step is one charge to it, at most once. */
export const usageAccount = (runId: string) => `agent:${runId}`;

const workingStatuses: AgentRunStatus[] = ['queued', 'planning', 'running'];
const activeStatuses: AgentRunStatus[] = [...workingStatuses, 'paused'];
export const isFinished = (status: AgentRunStatus) => finishedAgentRunStatuses.includes(status);

/** Moves a run from one of `from` to `to` (with `fields`), or answers null when it is no longer in one of them. */
function transition(
  runId: string,
  from: AgentRunStatus[],
  to: AgentRunStatus,
  fields: Record<string, unknown> = {},
): Promise<AgentRunDoc | null> {
  return AgentRun.findOneAndUpdate(
    { _id: runId, status: { $in: from } },
    { $set: { status: to, ...fields } },
    { returnDocument: 'after' },
  ).lean<AgentRunDoc>();
}

/** A worker takes the run up: `queued` becomes `planning` (a run taken over or resumed keeps its status). */
export async function beginRun(runId: string): Promise<void> {
  await transition(runId, ['queued'], 'planning', { startedAt: now() });
}

export const markRunning = (runId: string) => transition(runId, ['planning'], 'running');

/** Pauses a working run with the agent's question; null when it was cancelled meanwhile. */
export async function pauseRun(runId: string, question: string): Promise<AgentRunDoc | null> {
  const paused = await transition(runId, ['planning', 'running'], 'paused', { resultSummary: question });
  if (paused) await announcePause(paused);
  return paused;
}

/** The paused run's event, once per pause (its id derived from the run and its step count). */
const announcePause = (run: AgentRunDoc) => emitEvent(run.workspaceId, 'agent.run.paused', toAgentRun(run), `${run._id}:${run.steps}`);

/**
 * What follows the last change of a run that no worker works on (ended or
 * paused): done again by a job that finds it so, as its worker may have died
 * between that change and this (each part is safe to do twice).
 */
export async function followUpRun(run: AgentRunDoc): Promise<void> {
  if (isFinished(run.status)) await closeEndedRun(run);
  else if (run.status === 'paused') await announcePause(run);
}

/**
 * Ends a working run (`completed` or `failed`), its files and charges
 * written first so a client that sees it finished finds them; then the
 * conversation's playbook, the closed usage account and the event. Null
 * when it had already ended (cancelled meanwhile).
 */
export async function finishRun(
  runId: string,
  status: 'completed' | 'failed',
  summary: string,
  extra: { error?: string | null; result?: unknown } = {},
): Promise<AgentRunDoc | null> {
  const settled = await settledFields(runId, extra.result);
  if (!settled) return null;
  const ended = await transition(runId, workingStatuses, status, {
    ...settled,
    resultSummary: summary,
    error: extra.error ?? null,
    finishedAt: now(),
  });
  if (ended) await closeEndedRun(ended);
  return ended;
}

/** Cancels a run not yet finished; null when it had finished. */
export async function cancelRun(run: AgentRunDoc, summary: string): Promise<AgentRunDoc | null> {
  const settled = await settledFields(run._id);
  const resultSummary = run.resultSummary && run.status !== 'paused' ? run.resultSummary : summary;
  const cancelled = settled && (await transition(run._id, activeStatuses, 'cancelled', { ...settled, resultSummary, finishedAt: now() }));
  if (cancelled) await closeEndedRun(cancelled);
  return cancelled || null;
}

/** The job gave the run up (its workers kept dying, or it kept failing); one that ended or paused is followed up. */
export async function giveUpRun(runId: string, reason: string): Promise<void> {
  if (await finishRun(runId, 'failed', `The run failed: ${reason}.`, { error: reason })) return;
  const run = await AgentRun.findById(runId).lean<AgentRunDoc>();
  if (run) await followUpRun(run);
}

/** Writes a run's files (leads.csv; result.json with a result) and answers its charges, as they stand; null when the run is gone. */
async function settledFields(runId: string, result?: unknown) {
  const run = await AgentRun.findById(runId).lean<AgentRunDoc>();
  if (!run) return null;
  await writeArtifacts(run, result);
  const usage = await usageOf(run.workspaceId, usageAccount(run._id));
  return { creditsCharged: usage.charged, overageCredits: usage.overage };
}

/**
 * What follows a run's end: the playbook, the closed usage account, the
 * event. Idempotent: a run cancelled while its worker was mid-step is
 * closed again by that worker, its files then holding that step's leads.
 */
export async function closeEndedRun(run: AgentRunDoc, rewrite = false): Promise<void> {
  if (rewrite) {
    const settled = await settledFields(run._id);
    if (settled) await AgentRun.updateOne({ _id: run._id }, { $set: settled });
  }
  await recordInPlaybook(run);
  await closeUsage(run.workspaceId, usageAccount(run._id));
  if (run.status === 'completed' || run.status === 'failed')
    await emitEvent(run.workspaceId, `agent.run.${run.status}`, toAgentRun(run), run._id);
}

/**
 * Changes a conversation's playbook: read, changed, and written only over the revision it
 * was read at (read again when another change landed first), so no change is lost.
 */
async function changePlaybook(conversationId: string, change: (playbook: Playbook) => Partial<Playbook>): Promise<void> {
  for (;;) {
    const conversation = await AgentConversation.findById(conversationId).lean<ConversationDoc>();
    if (!conversation) return;
    const playbook = { runs: [], sources: [], ...conversation.playbook };
    const revision = conversation.playbookRevision;
    const written = await AgentConversation.updateOne(
      { _id: conversationId, playbookRevision: revision ?? { $exists: false } },
      { $set: { playbook: { ...playbook, ...change(playbook) } }, $inc: { playbookRevision: 1 } },
    );
    if (written.matchedCount) return;
  }
}

/** What a follow-up run inherits: each run's goal and summary, and which sites gave leads. */
async function recordInPlaybook(run: AgentRunDoc): Promise<void> {
  await changePlaybook(run.conversationId, (playbook) => ({
    runs: [
      ...playbook.runs.filter((entry) => entry.runId !== run._id),
      { runId: run._id, goal: run.goal, summary: run.resultSummary ?? null, leadsSaved: run.leadsSaved },
    ].slice(-20),
  }));
}

/** Adds what a step learned about sites (leads per host) to the conversation's playbook. */
export async function recordSources(conversationId: string, leadsByHost: Record<string, number>): Promise<void> {
  if (Object.keys(leadsByHost).length === 0) return;
  await changePlaybook(conversationId, (playbook) => {
    const sources = new Map(playbook.sources.map((source) => [source.host, source.leads]));
    for (const [host, leads] of Object.entries(leadsByHost)) sources.set(host, (sources.get(host) ?? 0) + leads);
    return { sources: [...sources].map(([host, leads]) => ({ host, leads })).slice(-200) };
  });
}
