import { nowMs } from '../../clock.ts';
import { log } from '../../logger.ts';
import { leadsForOutreach, markContacted, type OutreachLead } from '../../leads/lead-outreach.service.ts';
import { countForCampaign } from '../campaigns/campaign-progress.ts';
import type { CampaignDoc } from '../campaigns/campaign.model.ts';
import type { EnrollmentDoc } from '../campaigns/enrollment.model.ts';
import { advanceEnrollment, deferEnrollment, enrollmentEnded, reapplyEnd, skipStep, stopEnrollment } from '../campaigns/enrollments.service.ts';
import { localDay } from '../campaigns/schedule.ts';
import type { inboxesForSending } from '../inboxes/inboxes.service.ts';
import { renderStep, variantFor, type getSequenceForSending } from '../sequences/sequences.service.ts';
import { isSuppressed } from '../suppressions/suppressions.service.ts';
import { eventScopes, recordOutreachEvent } from '../stats/outreach-stats.service.ts';
import { claimMessage, claimRetry, findMessage, markInterrupted, newMessageId, stepRecordId } from './messages.service.ts';
import { deliver, type Delivery } from './deliver.ts';
import { releaseSlot, takeCampaignSlot, takeInboxSlot } from './send-slots.ts';

type Sequence = Awaited<ReturnType<typeof getSequenceForSending>>;
type SendingInbox = Awaited<ReturnType<typeof inboxesForSending>>[number];

/** What one campaign's pass of the engine shares: its sequence, its usable inboxes, and where the rotation is. */
export interface CampaignPass {
  campaign: CampaignDoc;
  sequence: Sequence;
  inboxes: SendingInbox[];
  rotation: { next: number };
}

export type StepOutcome = 'sent' | 'skipped' | 'stopped' | 'deferred' | 'failed' | 'claimed_elsewhere' | 'interrupted' | 'campaign_full' | 'inboxes_full';

const dayMs = 24 * 3_600_000;
/** Longer than any send takes (the SMTP socket times out after a minute): a claim this old has no worker left. */
const interruptedAfterMs = 10 * 60_000;

/** The step after `step`, due `wait_days` after `sentAt`; null after the last. */
function nextStepAfter(sequence: Sequence, step: number, fromMs: number) {
  const next = sequence.steps[step + 1];
  return next ? { step: step + 1, dueAt: new Date(fromMs + next.wait_days * dayMs) } : null;
}

/** One of the pass's inboxes with a free cap slot, taken in rotation; null when all are full. */
async function inboxWithSlot(pass: CampaignPass): Promise<{ inbox: SendingInbox; slot: string } | null> {
  for (let tried = 0; tried < pass.inboxes.length; tried++) {
    // (The list may shrink while sends are under way: an inbox paused by the bounce guard leaves it.)
    const inbox = pass.inboxes[pass.rotation.next++ % pass.inboxes.length]!;
    const slot = await takeInboxSlot(inbox.id, inbox.cap);
    if (slot) return { inbox, slot };
  }
  return null;
}

/**
 * Sends an enrollment's due step, or settles why it cannot go: the lead
 * stopped (unsubscribed, archived, suppressed, gone), the step is skipped
 * (a merge variable it lacks), the campaign or every inbox is at its cap,
 * or the step was claimed before (by another worker, or by one that died
 * mid-send: then it is reported, never sent again).
 */
export async function sendDueStep(pass: CampaignPass, enrollment: EnrollmentDoc): Promise<StepOutcome> {
  const { campaign, sequence } = pass;
  const ended = await enrollmentEnded(enrollment._id);
  if (ended) return void (await reapplyEnd(enrollment, ended)), 'stopped';
  const lead = (await leadsForOutreach(campaign.workspaceId, [enrollment.leadId])).get(enrollment.leadId);
  if (!lead?.email) return stop(enrollment, 'lead_gone');
  if (lead.unsubscribed) return stop(enrollment, 'unsubscribed');
  if (lead.archived || lead.status === 'disqualified') return stop(enrollment, 'archived');
  const stepIndex = enrollment.nextStep;
  const step = sequence.steps[stepIndex];
  if (!step) return void (await advanceEnrollment(enrollment, null)), 'skipped';

  const recordId = stepRecordId(enrollment._id, stepIndex);
  const earlier = await findMessage(recordId);
  if (earlier?.status === 'sent') return void (await advanceEnrollment(enrollment, nextStepAfter(sequence, stepIndex, earlier.sentAt!.getTime()))), 'sent';
  if (earlier?.status === 'claimed' || earlier?.status === 'interrupted') {
    // A fresh claim is another worker's send under way; an old one's worker died mid-send.
    if (earlier.status === 'claimed' && nowMs() - earlier.updatedAt.getTime() < interruptedAfterMs) return 'claimed_elsewhere';
    return interrupted(pass, enrollment, recordId, stepIndex);
  }
  if (earlier?.status === 'failed') return stop(enrollment, 'failed');
  if (await isSuppressed(campaign.workspaceId, lead.email)) return stop(enrollment, 'suppressed');

  const variant = variantFor(step, lead.id);
  const rendered = renderStep(sequence, stepIndex, variant, lead);
  if ('skipped' in rendered) {
    await skipStep(enrollment, rendered.skipped, nextStepAfter(sequence, stepIndex, nowMs()));
    return 'skipped';
  }

  const campaignSlot = await takeCampaignSlot(campaign._id, localDay(campaign.schedule, nowMs()), campaign.dailyLimit, () => localDay(campaign.schedule, nowMs()));
  if (!campaignSlot) return 'campaign_full';
  const taken = await inboxWithSlot(pass);
  if (!taken) return void (await releaseSlot(campaignSlot)), 'inboxes_full';
  const slots = [campaignSlot, taken.slot];
  const giveBack = () => Promise.all(slots.map(releaseSlot));

  const record = earlier
    ? (await claimRetry(recordId, earlier.attempts + 1, taken.inbox)) && (await findMessage(recordId))
    : await claimMessage({
        _id: recordId,
        workspaceId: campaign.workspaceId,
        brandId: campaign.brandId,
        campaignId: campaign._id,
        enrollmentId: enrollment._id,
        leadId: lead.id,
        inboxId: taken.inbox.id,
        step: stepIndex,
        variant,
        to: lead.email,
        subject: rendered.subject,
        messageId: newMessageId(recordId, taken.inbox.from),
        inReplyTo: step.thread_mode === 'reply' ? enrollment.firstMessageId : null,
      });
  if (!record) return void (await giveBack()), 'claimed_elsewhere';

  const delivery: Delivery = await deliver({
    record,
    inbox: taken.inbox,
    rendered,
    replyTo: campaign.replyTo ?? null,
    trackOpens: campaign.trackOpens,
    giveBack,
  });
  // The bounce guard paused the inbox: nothing more from it, in this pass either.
  if (delivery.outcome === 'bounced' && delivery.inboxPaused) pass.inboxes = pass.inboxes.filter((inbox) => inbox.id !== taken.inbox.id);
  return settle(pass, enrollment, stepIndex, variant, record.messageId, lead.status, delivery);
}

/** What the delivery means for the enrollment and the campaign's counts. */
async function settle(
  pass: CampaignPass,
  enrollment: EnrollmentDoc,
  stepIndex: number,
  variant: number,
  messageId: string,
  leadStatus: OutreachLead['status'],
  delivery: Delivery,
): Promise<StepOutcome> {
  switch (delivery.outcome) {
    case 'sent':
      await countForCampaign(pass.campaign._id, {}, { step: stepIndex, variant });
      await markContacted(enrollment.leadId, leadStatus);
      await advanceEnrollment(enrollment, nextStepAfter(pass.sequence, stepIndex, delivery.sentAt.getTime()), stepIndex === 0 ? messageId : undefined);
      return 'sent';
    case 'deferred':
      await deferEnrollment(enrollment, delivery.retryAt);
      return 'deferred';
    case 'suppressed':
      return stop(enrollment, 'suppressed');
    case 'bounced':
      return stop(enrollment, 'bounced');
    case 'failed':
      return stop(enrollment, 'failed');
  }
}

async function stop(enrollment: EnrollmentDoc, reason: NonNullable<EnrollmentDoc['stopReason']>): Promise<StepOutcome> {
  await stopEnrollment(enrollment, reason);
  return 'stopped';
}

/** A claim with no outcome: its send may or may not have gone out, so it is reported and the lead moves on. */
async function interrupted(pass: CampaignPass, enrollment: EnrollmentDoc, recordId: string, stepIndex: number): Promise<StepOutcome> {
  const record = await findMessage(recordId);
  if (record?.status === 'claimed' && (await markInterrupted(recordId))) {
    await countForCampaign(pass.campaign._id, { interrupted: 1 });
    await recordOutreachEvent(eventScopes({ ...record, campaignId: pass.campaign._id }), 'failed');
    log.warn('outreach step interrupted mid-send; not sent again', { campaignId: pass.campaign._id, recordId });
  }
  await advanceEnrollment(enrollment, nextStepAfter(pass.sequence, stepIndex, nowMs()));
  return 'interrupted';
}
