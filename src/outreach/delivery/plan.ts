import { nowMs } from '../../clock.ts';
import { log } from '../../logger.ts';
import { leadsForOutreach, markContacted, type OutreachLead } from '../../leads/index.ts';
import { countForCampaign } from '../campaigns/campaign-progress.ts';
import type { EnrollmentDoc } from '../campaigns/enrollment.model.ts';
import { renderStep, variantFor } from '../sequences/render-step.ts';
import { suppressedAmong, type ListedAddresses } from '../suppressions/suppressions.service.ts';
import { advanceEnrollment, deferEnrollment, nextStepAfter, skipStep, stopEnrollment } from './enrollment-state.ts';
import type { MessageDoc } from './message.model.ts';
import { findMessages, markInterrupted, stepRecordId } from './messages.service.ts';
import type { CampaignPass, PlannedSend, StepOutcome } from './pass.ts';

/** Longer than any send takes (the SMTP socket times out after a minute): a claim this old has no worker left. */
const interruptedAfterMs = 10 * 60_000;

/**
 * Reads what a chunk of due steps needs in three reads for all of them (the
 * leads, the steps' records, the do-not-contact list), settles those that
 * cannot go (the lead stopped, unsubscribed, archived, suppressed, gone or
 * validated invalid; a merge variable it lacks; a step sent, claimed or cut
 * off before) and answers the rest, to send, with the addresses the list
 * holds among theirs (a retry goes to the address of its first attempt).
 * `outcomes` gets each settled step's outcome at its index in `due`.
 *
 * A step whose record has an outcome its enrollment does not show yet (its
 * worker died between writing the one and the other) is moved on as that
 * outcome says: sent, waiting for its retry, or stopped.
 */
export async function planSteps(
  pass: CampaignPass,
  due: EnrollmentDoc[],
  outcomes: StepOutcome[],
): Promise<{ planned: PlannedSend[]; listed: ListedAddresses }> {
  const { campaign, sequence } = pass;
  const leads = await leadsForOutreach(
    campaign.workspaceId,
    due.map((enrollment) => enrollment.leadId),
  );
  const records = await findMessages(due.map((enrollment) => stepRecordId(enrollment._id, enrollment.nextStep)));
  const suppressed = await suppressedAmong(campaign.workspaceId, [
    ...[...leads.values()].flatMap((lead) => (lead.email ? [lead.email] : [])),
    ...[...records.values()].flatMap((record) => (record.status === 'deferred' ? [record.to] : [])),
  ]);
  const planned: PlannedSend[] = [];
  for (const [index, enrollment] of due.entries()) {
    const stop = async (reason: Parameters<typeof stopEnrollment>[1]) => (await stopEnrollment(enrollment, reason), 'stopped' as const);
    const lead = leads.get(enrollment.leadId);
    const step = sequence.steps[enrollment.nextStep];
    const earlier = records.get(stepRecordId(enrollment._id, enrollment.nextStep));
    const settled = await (async (): Promise<StepOutcome | undefined> => {
      if (!lead?.email) return stop('lead_gone');
      if (lead.unsubscribed) return stop('unsubscribed');
      if (lead.archived || lead.status === 'disqualified') return stop('archived');
      // Validated invalid since it was enrolled: nothing more goes to it (a changed email clears the verdict).
      if (lead.emailStatus === 'invalid') return stop('invalid_email');
      if (!step) return (void (await advanceEnrollment(enrollment, null)), 'skipped');
      if (earlier?.status === 'sent') return wentOut(pass, enrollment, lead, earlier);
      if (earlier?.status === 'claimed' || earlier?.status === 'interrupted') {
        // A fresh claim is another worker's send under way; an old one's worker died mid-send.
        if (earlier.status === 'claimed' && nowMs() - earlier.updatedAt.getTime() < interruptedAfterMs) return 'claimed_elsewhere';
        return interrupted(pass, enrollment, earlier);
      }
      if (earlier?.status === 'failed') return stop(earlier.counted?.includes('bounced') ? 'bounced' : 'failed');
      if (earlier?.status === 'deferred' && earlier.retryAt && earlier.retryAt.getTime() > nowMs())
        return (void (await deferEnrollment(enrollment, earlier.retryAt)), 'deferred');
      if (suppressed.has(lead.email)) return stop('suppressed');
      return undefined;
    })();
    if (settled) {
      outcomes[index] = settled;
      continue;
    }
    // A reply step goes in the lead's thread; with none (the message that was to open it did not go out), it opens one.
    const threadUnder = step!.thread_mode === 'reply' ? (enrollment.firstMessageId ?? null) : null;
    const variant = variantFor(step!, lead!.id);
    const rendered = renderStep(sequence, enrollment.nextStep, variant, lead!, threadUnder !== null);
    if ('skipped' in rendered) {
      await skipStep(enrollment, rendered.skipped, nextStepAfter(sequence, enrollment.nextStep, nowMs()), threadUnder === null);
      outcomes[index] = 'skipped';
      continue;
    }
    planned.push({
      index,
      enrollment,
      lead: lead as PlannedSend['lead'],
      step: enrollment.nextStep,
      variant,
      rendered,
      threadUnder,
      deferred: earlier?.status === 'deferred' ? earlier : null,
    });
  }
  return { planned, listed: suppressed };
}

/** A step recorded sent: on to the next step, in the thread it opened if it opened one; the lead is contacted. */
async function wentOut(pass: CampaignPass, enrollment: EnrollmentDoc, lead: OutreachLead, record: MessageDoc): Promise<StepOutcome> {
  await markContacted(lead.id, lead.status);
  const next = nextStepAfter(pass.sequence, enrollment.nextStep, record.sentAt!.getTime());
  await advanceEnrollment(enrollment, next, record.inReplyTo ? undefined : record.messageId);
  return 'sent';
}

/**
 * A claim with no outcome: its send may or may not have gone out, so it is
 * reported (as interrupted: its outcome unknown, not a failure) and the
 * lead moves on. A message that was to open a thread leaves none: the next
 * reply step opens one rather than answering a message the lead may never
 * have had.
 */
async function interrupted(pass: CampaignPass, enrollment: EnrollmentDoc, record: MessageDoc): Promise<StepOutcome> {
  if (record.status === 'claimed' && (await markInterrupted(record._id))) {
    await countForCampaign(pass.campaign._id, { interrupted: 1 });
    log.warn('outreach step interrupted mid-send; not sent again', { campaignId: pass.campaign._id, recordId: record._id });
  }
  await advanceEnrollment(enrollment, nextStepAfter(pass.sequence, enrollment.nextStep, nowMs()), record.inReplyTo ? undefined : null);
  return 'interrupted';
}
