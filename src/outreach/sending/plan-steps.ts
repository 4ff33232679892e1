import { nowMs } from '../../clock.ts';
import { log } from '../../logger.ts';
import { leadsForOutreach, type OutreachLead } from '../../leads/lead-outreach.service.ts';
import { countForCampaign } from '../campaigns/campaign-progress.ts';
import type { CampaignDoc } from '../campaigns/campaign.model.ts';
import type { EnrollmentDoc } from '../campaigns/enrollment.model.ts';
import { advanceEnrollment, skipStep, stopEnrollment } from '../campaigns/enrollments.service.ts';
import type { inboxesForSending } from '../inboxes/inbox-sending.service.ts';
import { renderStep, variantFor } from '../sequences/render-step.ts';
import type { getSequenceForSending } from '../sequences/sequences.service.ts';
import { recordOutreachEvent, eventScopes } from '../stats/outreach-stats.service.ts';
import { suppressedAmong, type ListedAddresses } from '../suppressions/suppressions.service.ts';
import type { MessageDoc } from './message.model.ts';
import { findMessages, markInterrupted, stepRecordId } from './messages.service.ts';

type Sequence = Awaited<ReturnType<typeof getSequenceForSending>>;
type SendingInbox = Awaited<ReturnType<typeof inboxesForSending>>[number];

/** What one campaign's pass of the engine shares: its sequence, its usable inboxes, and where the rotation is. */
export interface CampaignPass {
  campaign: CampaignDoc;
  sequence: Sequence;
  inboxes: SendingInbox[];
  rotation: { next: number };
}

export type StepOutcome =
  'sent' | 'skipped' | 'stopped' | 'deferred' | 'failed' | 'claimed_elsewhere' | 'interrupted' | 'campaign_full' | 'inboxes_full';

/** A due step to send: the lead, what it gets, and the record of an earlier attempt that was deferred. */
export interface PlannedSend {
  index: number;
  enrollment: EnrollmentDoc;
  lead: OutreachLead & { email: string };
  step: number;
  variant: number;
  rendered: { subject: string; html: string; text: string };
  threadUnder: string | null;
  deferred: MessageDoc | null;
}

/** Where a planned send goes: the lead's address, or for a retry the address of its first attempt. */
export const addressOf = (send: PlannedSend): string => send.deferred?.to ?? send.lead.email;

const dayMs = 24 * 3_600_000;
/** Longer than any send takes (the SMTP socket times out after a minute): a claim this old has no worker left. */
const interruptedAfterMs = 10 * 60_000;

/** The step after `step`, due `wait_days` after `fromMs`; null after the last. */
export function nextStepAfter(sequence: Sequence, step: number, fromMs: number) {
  const next = sequence.steps[step + 1];
  return next ? { step: step + 1, dueAt: new Date(fromMs + next.wait_days * dayMs) } : null;
}

/**
 * Reads what a chunk of due steps needs in three reads for all of them (the
 * leads, the steps' records, the do-not-contact list), settles those that
 * cannot go (the lead stopped, unsubscribed, archived, suppressed, gone or
 * validated invalid; a merge variable it lacks; a step sent, claimed or cut
 * off before) and answers the rest, to send, with the addresses the list
 * holds among theirs (a retry goes to the address of its first attempt).
 * `outcomes` gets each settled step's outcome at its index in `due`.
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
      if (earlier?.status === 'sent')
        return (
          void (await advanceEnrollment(enrollment, nextStepAfter(sequence, enrollment.nextStep, earlier.sentAt!.getTime()))),
          'sent'
        );
      if (earlier?.status === 'claimed' || earlier?.status === 'interrupted') {
        // A fresh claim is another worker's send under way; an old one's worker died mid-send.
        if (earlier.status === 'claimed' && nowMs() - earlier.updatedAt.getTime() < interruptedAfterMs) return 'claimed_elsewhere';
        return interrupted(pass, enrollment, earlier);
      }
      if (earlier?.status === 'failed') return stop('failed');
      if (suppressed.has(lead.email)) return stop('suppressed');
      return undefined;
    })();
    if (settled) {
      outcomes[index] = settled;
      continue;
    }
    const variant = variantFor(step!, lead!.id);
    const rendered = renderStep(sequence, enrollment.nextStep, variant, lead!);
    if ('skipped' in rendered) {
      await skipStep(enrollment, rendered.skipped, nextStepAfter(sequence, enrollment.nextStep, nowMs()));
      outcomes[index] = 'skipped';
      continue;
    }
    const threadUnder = step!.thread_mode === 'reply' ? (enrollment.firstMessageId ?? null) : null;
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

/** A claim with no outcome: its send may or may not have gone out, so it is reported and the lead moves on. */
async function interrupted(pass: CampaignPass, enrollment: EnrollmentDoc, record: MessageDoc): Promise<StepOutcome> {
  if (record.status === 'claimed' && (await markInterrupted(record._id))) {
    await countForCampaign(pass.campaign._id, { interrupted: 1 });
    await recordOutreachEvent(eventScopes({ ...record, campaignId: pass.campaign._id }), 'failed');
    log.warn('outreach step interrupted mid-send; not sent again', { campaignId: pass.campaign._id, recordId: record._id });
  }
  await advanceEnrollment(enrollment, nextStepAfter(pass.sequence, enrollment.nextStep, nowMs()));
  return 'interrupted';
}
