/**
 * The settle stage: what came of a chunk's sends is counted once (settle-counts.ts) and added to the leads' activity,
 * the bounce guard looks at the inboxes a recipient refused, and the enrollments move on (enrollment-state.ts) and
 * the leads are marked contacted.
 */
import { now } from '../../clock.ts';
import { markLeadsContacted, recordLeadActivity } from '../../leads/index.ts';
import { applyBounceGuard } from '../inboxes/inbox-sending.service.ts';
import type { ClaimedSend } from './claim.ts';
import { advanceEnrollments, deferEnrollments, nextStepAfter, stopEnrollment } from './enrollment-state.ts';
import { answersActivity } from './message-activity.ts';
import type { CampaignPass, StepOutcome } from './pass.ts';
import type { Answer, Delivery } from './send.ts';
import type { SendHold } from './send-holds.ts';
import { countOutcomes } from './settle-counts.ts';

/**
 * Counts what came of a hold's answered sends, once (countOutcomes: the
 * statistics, the campaign's sent, a hard bounce's suppression), records
 * them in their leads' activity (one insert beside the counts), then has
 * the bounce guard look at each inbox a recipient refused. Answers each
 * send's delivery, in order.
 */
export async function settleAnswers(hold: SendHold, answers: Answer[]): Promise<Delivery[]> {
  // The leads' activity goes with the counts (apart documents, written side by side).
  await Promise.all([
    countOutcomes(
      hold.id,
      answers.map(({ request, outcome, counted }) => ({
        ...request.record,
        status: outcome.status,
        counted,
        sentAt: outcome.status === 'sent' ? outcome.sentAt : null,
      })),
    ),
    recordLeadActivity(answersActivity(answers, now())),
  ]);
  const bounced = answers.filter(({ delivery }) => delivery.outcome === 'bounced');
  const paused = new Set<string>();
  for (const { request } of new Map(bounced.map((one) => [one.request.inbox.id, one])).values()) {
    if (await applyBounceGuard(request.record.workspaceId, request.inbox.id)) paused.add(request.inbox.id);
  }
  return answers.map(({ request, delivery }) =>
    delivery.outcome === 'bounced' ? { ...delivery, inboxPaused: paused.has(request.inbox.id) } : delivery,
  );
}

/** What the deliveries mean for the enrollments and the leads (the counts are settleAnswers'): a few writes for all of them. */
export async function settleSteps(
  pass: CampaignPass,
  results: Array<{ request: ClaimedSend; delivery: Delivery }>,
  outcomes: StepOutcome[],
): Promise<void> {
  const sent = results.flatMap(({ request, delivery }) => (delivery.outcome === 'sent' ? [{ request, sentAt: delivery.sentAt }] : []));
  if (sent.length) {
    await markLeadsContacted(sent.map(({ request }) => ({ id: request.send.lead.id, status: request.send.lead.status })));
    await advanceEnrollments(
      sent.map(({ request, sentAt }) => ({
        enrollment: request.send.enrollment,
        next: nextStepAfter(pass.sequence, request.send.step, sentAt.getTime()),
        // A message that went out as a new thread opens the one the next reply steps go under.
        firstMessageId: request.record.inReplyTo ? undefined : request.record.messageId,
      })),
    );
  }
  await deferEnrollments(
    results.flatMap(({ request, delivery }) =>
      delivery.outcome === 'deferred' ? [{ enrollment: request.send.enrollment, dueAt: delivery.retryAt }] : [],
    ),
  );
  for (const { request, delivery } of results) {
    outcomes[request.send.index] = delivery.outcome === 'sent' || delivery.outcome === 'deferred' ? delivery.outcome : 'stopped';
    if (delivery.outcome === 'suppressed' || delivery.outcome === 'bounced' || delivery.outcome === 'failed')
      await stopEnrollment(request.send.enrollment, delivery.outcome);
    // The bounce guard paused the inbox: nothing more from it, in this pass either.
    if (delivery.outcome === 'bounced' && delivery.inboxPaused)
      pass.inboxes = pass.inboxes.filter((inbox) => inbox.id !== request.inbox.id);
  }
}
