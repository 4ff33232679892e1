import { isSuppressionEntry } from '../../../schema/outreach/suppressions.ts';
import { nowMs } from '../../clock.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { log } from '../../logger.ts';
import { markUnsubscribed } from '../../leads/index.ts';
import { workspaceMeetsPlan } from '../../workspaces/index.ts';
import { stopLeadEnrollments } from '../delivery/enrollment-state.ts';
import { suppressAddress } from '../suppressions/suppressions.service.ts';
import { AnalysisPending, Reply, type AnalysisPendingDoc, type ReplyDoc } from './reply.model.ts';
import { analyzeHeuristically, type Analysis } from './sentiment-heuristic.ts';
import { configuredModel } from '../../llm/configured-model.ts';
import { analyzeWithModel } from './sentiment-model.ts';

/** A model that cannot be reached is tried again after 1, 2, 4, 8 minutes; then the heuristic answers. */
const modelAttempts = 5;
const retryDelayMs = (attempts: number) => 2 ** (attempts - 1) * 60_000;

/** Queues a stored reply for analysis (once, whoever asks twice). */
export async function queueAnalysis(replyId: string): Promise<void> {
  try {
    await AnalysisPending.create({ _id: replyId, nextAttemptAt: new Date(nowMs()) });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
}

/**
 * Analyses the replies waiting for it (up to `limit`): with the configured
 * model, or the heuristic classifier when there is none, or when the
 * model's answer was unusable twice, or after it could not be reached
 * `modelAttempts` times. Ingestion never waits for this. Returns how many
 * were analysed.
 */
export async function analyzePendingReplies(limit = 50): Promise<number> {
  const due = await AnalysisPending.find({ nextAttemptAt: { $lte: new Date(nowMs()) } })
    .sort({ nextAttemptAt: 1 })
    .limit(limit)
    .lean<AnalysisPendingDoc[]>();
  let analysed = 0;
  for (const pending of due) {
    try {
      if (await analyzeOne(pending)) analysed++;
    } catch (error) {
      // One reply failing (its effects, the store) waits its turn again and never holds up the others.
      const attempts = pending.attempts + 1;
      log.warn('reply analysis failed', { replyId: pending._id, attempts, error: error instanceof Error ? error.message : String(error) });
      await AnalysisPending.updateOne(
        { _id: pending._id },
        { $set: { attempts, nextAttemptAt: new Date(nowMs() + retryDelayMs(Math.min(attempts, 7))) } },
      );
    }
  }
  return analysed;
}

/** Analyses one queued reply; false when it stays queued (the model is away) or is gone. */
async function analyzeOne(pending: AnalysisPendingDoc): Promise<boolean> {
  const reply = await Reply.findById(pending._id).lean<ReplyDoc>();
  if (!reply) return (void (await AnalysisPending.deleteOne({ _id: pending._id })), false);
  // The model only where its answer is shown (Pro and Business); the heuristic still catches unsubscribe requests elsewhere.
  const model = (await workspaceMeetsPlan(reply.workspaceId, 'pro')) ? configuredModel() : null;
  let analysis: Analysis | null = null;
  let analyzedBy = 'heuristic';
  if (model) {
    try {
      analysis = await analyzeWithModel(model, reply);
      if (analysis) analyzedBy = `model:${model.model}`;
    } catch (error) {
      const attempts = pending.attempts + 1;
      log.warn('reply analysis: the model could not be reached', {
        replyId: reply._id,
        attempts,
        error: error instanceof Error ? error.message : String(error),
      });
      if (attempts < modelAttempts) {
        await AnalysisPending.updateOne(
          { _id: pending._id },
          { $set: { attempts, nextAttemptAt: new Date(nowMs() + retryDelayMs(attempts)) } },
        );
        return false;
      }
    }
  }
  analysis ??= analyzeHeuristically(reply);
  await Reply.updateOne({ _id: reply._id }, { $set: { ...analysis, analyzedAt: new Date(nowMs()), analyzedBy } });
  await applySentiment(reply, analysis);
  await AnalysisPending.deleteOne({ _id: pending._id });
  return true;
}

/** A reply asking to stop puts its sender on the do-not-contact list and ends the lead's enrollments (idempotent). */
async function applySentiment(reply: ReplyDoc, analysis: Analysis): Promise<void> {
  if (analysis.sentiment !== 'unsubscribe' || reply.kind !== 'reply') return;
  // A sender address no list can hold: the lead still stops.
  if (isSuppressionEntry(reply.fromEmail)) await suppressAddress(reply.workspaceId, reply.fromEmail, 'unsubscribe', 'reply');
  if (reply.leadId) {
    await markUnsubscribed(reply.leadId, { source: 'reply', campaignId: reply.campaignId, messageId: reply.messageRecordId });
    await stopLeadEnrollments(reply.workspaceId, reply.leadId, 'unsubscribed');
  }
}
