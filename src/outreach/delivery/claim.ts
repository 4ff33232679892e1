/**
 * The claim stage: a chunk's planned sends take their cap slots under one hold, then each few are claimed durably
 * just before their SMTP calls (new ones with one journaled insert, a retry by one conditional update), so a step is
 * claimed once, ever, and a claim a power loss could undo is never followed by its send.
 */
import { nowMs } from '../../clock.ts';
import { localDay } from '../campaigns/schedule.ts';
import { takeCampaignSlots, takeInboxSlots, type TakenSlots } from '../counters/send-slots.ts';
import type { SendingInbox } from '../inboxes/inbox-sending.service.ts';
import type { MessageDoc } from './message.model.ts';
import { claimMessages, claimRetry, newMessageId, stepRecordId, type NewMessage } from './messages.service.ts';
import type { CampaignPass, PlannedSend, StepOutcome } from './pass.ts';
import type { SendHold } from './send-holds.ts';

/** A claimed message, ready for its SMTP call (send.ts). */
export interface DeliveryRequest {
  /** The claimed message record. */
  record: MessageDoc;
  inbox: SendingInbox;
  rendered: { subject: string; html: string; text: string };
  replyTo: string | null;
  trackOpens: boolean;
  trackClicks: boolean;
  /** The cap counts the send holds a slot of (under its hold): given back when the send did not happen. */
  counts: string[];
}

export type ClaimedSend = DeliveryRequest & { send: PlannedSend };

/** A planned send with its slots taken: the inbox it goes from. */
export interface Slotted {
  send: PlannedSend;
  inbox: SendingInbox;
  /** The counts it holds a slot of: the campaign's day and its inbox's hour. */
  counts: string[];
}

/**
 * Takes the campaign's slots for the day and the inboxes' slots for the
 * sends: an even share of each inbox in rotation, then what the others
 * leave; sends spread over the inboxes in turn. Sends left without a slot
 * are refused as campaign_full or inboxes_full.
 */
export async function takeSlots(
  pass: CampaignPass,
  planned: PlannedSend[],
  hold: SendHold,
): Promise<{ assigned: Slotted[]; refused: { sends: PlannedSend[]; outcome: StepOutcome | null } }> {
  const { campaign } = pass;
  const currentDay = () => localDay(campaign.schedule, nowMs());
  const day = currentDay();
  const campaignSlots = await takeCampaignSlots(campaign._id, day, campaign.dailyLimit, planned.length, currentDay, hold.id);
  hold.took(campaignSlots);
  const allowed = campaignSlots?.slots ?? 0;
  const taken = new Map<SendingInbox, TakenSlots>();
  let wanted = allowed;
  const open = pass.inboxes
    .slice(pass.rotation.next % pass.inboxes.length)
    .concat(pass.inboxes.slice(0, pass.rotation.next % pass.inboxes.length));
  for (let round = 0; round < 2 && wanted > 0 && open.length; round++) {
    const share = Math.ceil(wanted / open.length);
    for (const inbox of [...open]) {
      if (wanted <= 0) break;
      let got = await takeInboxSlots(inbox.id, inbox.cap, round === 0 ? Math.min(share, wanted) : wanted, hold.id);
      hold.took(got);
      if (got && taken.has(inbox) && taken.get(inbox)!.count !== got.count) {
        // The hour turned between the rounds: an inbox's sends hold slots of one count.
        await hold.release(got.count, got.slots);
        got = null;
      }
      if (got) {
        taken.set(inbox, taken.has(inbox) ? { ...got, slots: taken.get(inbox)!.slots + got.slots } : got);
        wanted -= got.slots;
      }
      if (!got || got.slots < share) open.splice(open.indexOf(inbox), 1);
    }
  }
  const slotted = allowed - wanted;
  // The campaign's slots the inboxes could not match go back.
  if (campaignSlots && wanted > 0) await hold.release(campaignSlots.count, wanted);
  // Sends spread over the inboxes in turn, as many to each as it gave slots.
  const left = new Map([...taken].map(([inbox, slots]) => [inbox, slots.slots]));
  const assigned: Slotted[] = [];
  for (const send of planned.slice(0, slotted)) {
    let inbox: SendingInbox;
    do inbox = pass.inboxes[pass.rotation.next++ % pass.inboxes.length]!;
    while (!left.get(inbox));
    left.set(inbox, left.get(inbox)! - 1);
    assigned.push({
      send,
      inbox,
      counts: [campaignSlots!.count, taken.get(inbox)!.count],
    });
  }
  const outcome: StepOutcome | null =
    allowed < planned.length && wanted === 0 ? 'campaign_full' : slotted < planned.length ? 'inboxes_full' : null;
  return { assigned, refused: { sends: planned.slice(slotted), outcome } };
}

/**
 * Claims the sends' records under the hold (the new ones with one insert): those another worker claimed first are
 * lost (their slots go back when the hold closes).
 */
export async function claim(pass: CampaignPass, assigned: Slotted[], hold: SendHold): Promise<{ won: ClaimedSend[]; lost: Slotted[] }> {
  const { campaign } = pass;
  const fresh = assigned.filter(({ send }) => !send.deferred);
  const messages = new Map<Slotted, NewMessage>(
    fresh.map((slotted) => {
      const recordId = stepRecordId(slotted.send.enrollment._id, slotted.send.step);
      const message: NewMessage = {
        _id: recordId,
        workspaceId: campaign.workspaceId,
        brandId: campaign.brandId,
        campaignId: campaign._id,
        enrollmentId: slotted.send.enrollment._id,
        leadId: slotted.send.lead.id,
        inboxId: slotted.inbox.id,
        step: slotted.send.step,
        variant: slotted.send.variant,
        to: slotted.send.lead.email,
        subject: slotted.send.rendered.subject,
        // Kept for the conversation a reply opens (GET /api/outreach/replies/{id}): what the lead read.
        bodyText: slotted.send.rendered.text,
        messageId: newMessageId(recordId, slotted.inbox.from),
        inReplyTo: slotted.send.threadUnder,
        hold: hold.id,
      };
      return [slotted, message];
    }),
  );
  const claimedIds = await claimMessages([...messages.values()]);
  const won: ClaimedSend[] = [];
  const lost: Slotted[] = [];
  // A send won holds its slots from now on.
  const request = (slotted: Slotted, record: DeliveryRequest['record']): ClaimedSend => {
    hold.use(slotted.counts);
    return {
      send: slotted.send,
      record,
      inbox: slotted.inbox,
      rendered: slotted.send.rendered,
      replyTo: campaign.replyTo ?? null,
      trackOpens: campaign.trackOpens,
      trackClicks: campaign.trackClicks,
      counts: slotted.counts,
    };
  };
  for (const slotted of assigned) {
    const message = messages.get(slotted);
    if (message) {
      if (claimedIds.has(message._id)) won.push(request(slotted, { ...message, status: 'claimed', attempts: 1 } as MessageDoc));
      else lost.push(slotted);
      continue;
    }
    const retried = await claimRetry(slotted.send.deferred!._id, slotted.send.deferred!.attempts + 1, slotted.inbox, hold.id);
    if (retried) won.push(request(slotted, retried));
    else lost.push(slotted);
  }
  return { won, lost };
}
