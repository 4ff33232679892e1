import { nowMs } from '../../clock.ts';
import { markLeadsContacted } from '../../leads/index.ts';
import type { EnrollmentDoc } from '../campaigns/enrollment.model.ts';
import { advanceEnrollments, deferEnrollments, stopEnrollment } from '../campaigns/enrollments.service.ts';
import { localDay } from '../campaigns/schedule.ts';
import { suppressedAmong, type ListedAddresses } from '../suppressions/suppressions.service.ts';
import { answer, settleAnswers, type Answer, type Delivery, type DeliveryRequest } from './deliver.ts';
import type { MessageDoc } from './message.model.ts';
import { claimMessages, claimRetry, newMessageId, stepRecordId, type NewMessage } from './messages.service.ts';
import { addressOf, nextStepAfter, planSteps, type CampaignPass, type PlannedSend, type StepOutcome } from './plan-steps.ts';
import { SendHold } from './send-holds.ts';
import { takeCampaignSlots, takeInboxSlots, type TakenSlots } from './send-slots.ts';

export type { CampaignPass, StepOutcome } from './plan-steps.ts';

type SendingInbox = CampaignPass['inboxes'][number];

/** SMTP sends under way at once (each on its own connection of the inbox's pool): claimed together, just before. */
const sendsAtOnce = 8;

/** How old the chunk's read of the do-not-contact list may be when sends go: older, it is read again for them. */
const listFreshForMs = 1_000;

/** The do-not-contact list as read for a chunk's sends: the addresses it holds among theirs, and when it was read. */
interface ListRead {
  listed: ListedAddresses;
  /** performance.now() before the read: the list's age is measured on a clock no one sets. */
  readAt: number;
}

/**
 * Sends a chunk of due steps with a few writes for all of them: the reads
 * and the settling of steps that cannot go (planSteps), the cap slots taken
 * under one hold with one conditional increment per count, then a few sends
 * at a time, each few claimed with one insert just before their SMTP calls
 * (the do-not-contact list read again for them once the chunk's read of it
 * is a second old), each outcome written as soon as its server answers
 * (grouped with the others answering meanwhile), and at the end the counts,
 * the enrollments and the leads written together and the hold closed (the
 * slots its sends did not use given back). Answers each step's outcome, in
 * order.
 *
 * A worker that dies mid-chunk leaves only the sends then in flight
 * claimed, their outcome unknown: they are reported as interrupted and
 * never sent again. What it recorded is counted, and the slots it held for
 * sends that did not go out given back, by the recovery of its hold
 * (send-recovery.ts); its enrollments move on when next due (planSteps).
 */
export async function sendSteps(pass: CampaignPass, due: EnrollmentDoc[]): Promise<StepOutcome[]> {
  const outcomes: StepOutcome[] = [];
  const planReadAt = performance.now();
  const { planned, listed } = await planSteps(pass, due, outcomes);
  if (!planned.length) return outcomes;
  const hold = await SendHold.open(planned.map((send) => stepRecordId(send.enrollment._id, send.step)));
  let list: ListRead = { listed, readAt: planReadAt };
  const { assigned, refused } = await takeSlots(pass, planned, hold);
  for (const { index } of refused.sends) outcomes[index] = refused.outcome!;
  const answers: Array<Answer<ClaimedSend>> = [];
  const written: Array<Promise<void>> = [];
  for (let start = 0; start < assigned.length; start += sendsAtOnce) {
    const claimed = await claim(pass, assigned.slice(start, start + sendsAtOnce), hold);
    for (const { send } of claimed.lost) outcomes[send.index] = 'claimed_elsewhere';
    if (performance.now() - list.readAt >= listFreshForMs) list = await readList(pass, assigned.slice(start));
    for (const sent of await Promise.all(claimed.won.map((request) => answer(request, list.listed)))) {
      answers.push(sent.answer);
      written.push(sent.written);
      if (sent.answer.giveBack) hold.unuse(sent.answer.request.counts);
    }
  }
  await Promise.all(written);
  const deliveries = await settleAnswers(hold, answers);
  await settle(
    pass,
    answers.map(({ request }, i) => ({ request, delivery: deliveries[i]! })),
    outcomes,
  );
  await hold.close();
  return outcomes;
}

type ClaimedSend = DeliveryRequest & { send: PlannedSend };

/** The list read again for the chunk's sends still to go (a retry goes to the address of its first attempt). */
async function readList(pass: CampaignPass, sends: Slotted[]): Promise<ListRead> {
  const readAt = performance.now();
  return {
    listed: await suppressedAmong(
      pass.campaign.workspaceId,
      sends.map(({ send }) => addressOf(send)),
    ),
    readAt,
  };
}

interface Slotted {
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
async function takeSlots(
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
async function claim(pass: CampaignPass, assigned: Slotted[], hold: SendHold): Promise<{ won: ClaimedSend[]; lost: Slotted[] }> {
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

/** What the deliveries mean for the enrollments and the leads (the counts are settleAnswers'): a few writes for all of them. */
async function settle(
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
