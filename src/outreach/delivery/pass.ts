/** What the stages of the delivery pipeline (pipeline.ts) hand on: a campaign's pass, a step's outcome, a step planned to send. */
import type { OutreachLead } from '../../leads/index.ts';
import type { CampaignDoc } from '../campaign-record/campaign.model.ts';
import type { EnrollmentDoc } from '../campaigns/enrollment.model.ts';
import type { SendingInbox } from '../inboxes/inbox-sending.service.ts';
import type { getSequenceForSending } from '../sequences/sequences.service.ts';
import type { MessageDoc } from './message.model.ts';

/** The sequence as the engine renders it. */
export type Sequence = Awaited<ReturnType<typeof getSequenceForSending>>;

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
