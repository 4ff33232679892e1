/**
 * The delivery pipeline for a chunk of a campaign's due steps, its stages in order: plan (plan.ts), claim (claim.ts),
 * send (send.ts), settle (settle.ts), each entered once, from here; the enrollments move through enrollment-state.ts
 * alone. A direct send (direct-send.ts) takes its one message through the same send and settle.
 */
import type { EnrollmentDoc } from '../campaigns/enrollment.model.ts';
import { suppressedAmong, type ListedAddresses } from '../suppressions/suppressions.service.ts';
import { claim, takeSlots, type ClaimedSend, type Slotted } from './claim.ts';
import { stepRecordId } from './messages.service.ts';
import { addressOf, type CampaignPass, type StepOutcome } from './pass.ts';
import { planSteps } from './plan.ts';
import { answer, type Answer } from './send.ts';
import { SendHold } from './send-holds.ts';
import { settleAnswers, settleSteps } from './settle.ts';

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
  await settleSteps(
    pass,
    answers.map(({ request }, i) => ({ request, delivery: deliveries[i]! })),
    outcomes,
  );
  await hold.close();
  return outcomes;
}

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
