/**
 * An enrollment's way through its campaign, owned here: which are due, and every move after enrolling (on to the
 * next step, deferred, a step skipped, paused, stopped, finished). Each move is conditional on the state it was read
 * in, so of two racing moves (two workers, a send and a reply) the first wins.
 */
import { setEach } from '../../db/lean-update.ts';
import { countForCampaign } from '../campaigns/campaign-progress.ts';
import type { CampaignDoc } from '../campaign-record/campaign.model.ts';
import { Enrollment, type EnrollmentDoc, type EnrollmentOutcome } from '../campaigns/enrollment.model.ts';
import type { Sequence } from './pass.ts';

/** A campaign's enrollments whose next step is due, oldest first. */
export const dueEnrollments = (campaign: CampaignDoc, at: Date, limit: number) =>
  Enrollment.find({ campaignId: campaign._id, status: 'active', nextDueAt: { $lte: at } })
    .sort({ nextDueAt: 1, _id: 1 })
    .limit(limit)
    .lean<EnrollmentDoc[]>();

export const hasActiveEnrollments = async (campaignId: string) => (await Enrollment.exists({ campaignId, status: 'active' })) !== null;

type StopReason = NonNullable<EnrollmentDoc['stopReason']>;
export interface NextStep {
  step: number;
  dueAt: Date;
}

/**
 * Moves an enrollment from the step it was at to `next`. Only from that step:
 * a worker holding an older copy cannot move it back.
 */
async function moveOn(
  enrollment: EnrollmentDoc,
  next: NextStep,
  extra: Record<string, unknown> = {},
  push?: Record<string, unknown>,
): Promise<void> {
  await Enrollment.updateOne(
    { _id: enrollment._id, status: 'active', nextStep: enrollment.nextStep },
    { $set: { nextStep: next.step, nextDueAt: next.dueAt, ...extra }, ...(push && { $push: push }) },
  );
}

const endState = (outcome: EnrollmentOutcome) =>
  outcome === 'finished' ? { status: 'finished', stopReason: null } : { status: 'stopped', stopReason: outcome };

/**
 * Ends an enrollment once: one conditional update from `active`, so of two
 * racing ends (two workers, a send and an unsubscribe) the first wins and
 * is counted on the campaign; a later one changes nothing. True when this
 * call ended it.
 */
async function endEnrollment(
  enrollment: Pick<EnrollmentDoc, '_id' | 'campaignId'>,
  outcome: EnrollmentOutcome,
  extra: Record<string, unknown> = {},
): Promise<boolean> {
  const ended = await Enrollment.updateOne({ _id: enrollment._id, status: 'active' }, { $set: { ...endState(outcome), ...extra } });
  if (ended.modifiedCount) await countForCampaign(enrollment.campaignId, { [outcome]: 1 });
  return ended.modifiedCount === 1;
}

/** The step went out (or is done with): on to the next (due `wait_days` after it), or the enrollment is finished. */
export async function advanceEnrollment(enrollment: EnrollmentDoc, next: NextStep | null, firstMessageId?: string | null): Promise<void> {
  await advanceEnrollments([{ enrollment, next, firstMessageId }]);
}

/**
 * A step an enrollment is done with: the next one (null: none left), and the thread reply steps go under from now
 * on (see the enrollment's firstMessageId): the step's Message-ID when it opened a thread, null when the step that
 * was to open one did not go out, undefined when the thread stays as it was.
 */
export interface StepDone {
  enrollment: EnrollmentDoc;
  next: NextStep | null;
  firstMessageId?: string | null;
}

/**
 * Moves many enrollments of one campaign past their step in two writes: one
 * for those going on to a step (each only from the step it was at), one for
 * those finished (each only while active), whose count goes on the campaign.
 */
export async function advanceEnrollments(done: StepDone[]): Promise<void> {
  const extra = (item: StepDone) => (item.firstMessageId !== undefined ? { firstMessageId: item.firstMessageId } : {});
  const moving = done.filter((item): item is StepDone & { next: NextStep } => item.next !== null);
  const finishing = done.filter((item) => item.next === null);
  if (moving.length) {
    await setEach(
      Enrollment,
      moving.map((item) => ({
        filter: { _id: item.enrollment._id, status: 'active', nextStep: item.enrollment.nextStep },
        set: { nextStep: item.next.step, nextDueAt: item.next.dueAt, ...extra(item) },
      })),
    );
  }
  if (finishing.length) {
    const finished = await setEach(
      Enrollment,
      finishing.map((item) => ({
        filter: { _id: item.enrollment._id, status: 'active' },
        set: { ...endState('finished'), ...extra(item) },
      })),
    );
    if (finished.modifiedCount) await countForCampaign(finishing[0]!.enrollment.campaignId, { finished: finished.modifiedCount });
  }
}

/**
 * A step the lead cannot be sent (a merge variable it lacks): recorded, and on to the next step. A step that was to
 * open a thread (`opensThread`) leaves none for the reply steps after it.
 */
export async function skipStep(enrollment: EnrollmentDoc, reason: string, next: NextStep | null, opensThread = false): Promise<void> {
  const skipped = { step: enrollment.nextStep, reason };
  if (next) await moveOn(enrollment, next, opensThread ? { firstMessageId: null } : {}, { skipped });
  else {
    await Enrollment.updateOne({ _id: enrollment._id }, { $push: { skipped } });
    await endEnrollment(enrollment, 'finished');
  }
}

/** The step is tried again at `dueAt` (a temporary failure). */
export async function deferEnrollment(enrollment: EnrollmentDoc, dueAt: Date): Promise<void> {
  await deferEnrollments([{ enrollment, dueAt }]);
}

/** Many steps tried again later, in one write (each only from the step it was at). */
export async function deferEnrollments(deferred: Array<{ enrollment: EnrollmentDoc; dueAt: Date }>): Promise<void> {
  if (!deferred.length) return;
  await Enrollment.bulkWrite(
    deferred.map(({ enrollment, dueAt }) => ({
      updateOne: {
        filter: { _id: enrollment._id, status: 'active', nextStep: enrollment.nextStep },
        update: { $set: { nextDueAt: dueAt } },
      },
    })),
  );
}

/** Nothing more goes to this lead in this campaign. Counted once, by the end recorded first. */
export async function stopEnrollment(enrollment: Pick<EnrollmentDoc, '_id' | 'campaignId'>, reason: StopReason): Promise<void> {
  await endEnrollment(enrollment, reason);
}

/**
 * An out-of-office answer: the enrollment's next step waits until `until`
 * (an active enrollment only, and never brought forward). True when it moved.
 */
export async function pauseEnrollmentUntil(enrollmentId: string, until: Date): Promise<boolean> {
  const enrollment = await Enrollment.findById(enrollmentId).lean<EnrollmentDoc>();
  if (!enrollment || enrollment.status !== 'active' || enrollment.nextDueAt.getTime() >= until.getTime()) return false;
  await deferEnrollment(enrollment, until);
  return true;
}

/** Stops every active enrollment of a lead, in every campaign (it unsubscribed, bounced, replied). */
export async function stopLeadEnrollments(workspaceId: string, leadId: string, reason: StopReason): Promise<void> {
  const enrollments = await Enrollment.find({ workspaceId, leadId, status: 'active' }, { campaignId: 1 }).lean<EnrollmentDoc[]>();
  for (const enrollment of enrollments) await stopEnrollment(enrollment, reason);
}

/** The leads among these with an active enrollment in the campaign. */
export async function activelyEnrolled(campaignId: string, leadIds: string[]): Promise<string[]> {
  const ids = [...new Set(leadIds)].map((leadId) => `${campaignId}:${leadId}`);
  const active = await Enrollment.find({ _id: { $in: ids }, status: 'active' }, { leadId: 1 }).lean<Array<{ leadId: string }>>();
  return active.map((enrollment) => enrollment.leadId);
}

/** The leads among these whose active enrollment in `campaignId` came from a move out of `movedFrom`. */
export async function movedInFrom(campaignId: string, movedFrom: string, leadIds: string[]): Promise<string[]> {
  const ids = [...new Set(leadIds)].map((leadId) => `${campaignId}:${leadId}`);
  const moved = await Enrollment.find({ _id: { $in: ids }, status: 'active', movedFrom }, { leadId: 1 }).lean<Array<{ leadId: string }>>();
  return moved.map((enrollment) => enrollment.leadId);
}

/**
 * Takes leads out of a campaign (a remove, or a move to another): their active enrollments stopped as `removed` in
 * one write, each only while active, and counted on the campaign. A send already claimed goes on and is recorded;
 * its enrollment, stopped, moves no further. Answers the leads removed by this call.
 */
export async function removeEnrollments(campaignId: string, leadIds: string[]): Promise<string[]> {
  const active = await activelyEnrolled(campaignId, leadIds);
  if (!active.length) return [];
  const ids = active.map((leadId) => `${campaignId}:${leadId}`);
  const stopped = await setEach(
    Enrollment,
    ids.map((_id) => ({ filter: { _id, status: 'active' }, set: endState('removed') })),
  );
  if (!stopped.modifiedCount) return [];
  await countForCampaign(campaignId, { removed: stopped.modifiedCount });
  if (stopped.modifiedCount === active.length) return active;
  // Some ended otherwise meanwhile (a reply, their last step): those stopped as removed are this call's (or a racing remove's).
  const removed = await Enrollment.find({ _id: { $in: ids }, status: 'stopped', stopReason: 'removed' }, { leadId: 1 }).lean<
    Array<{ leadId: string }>
  >();
  return removed.map((enrollment) => enrollment.leadId);
}

const dayMs = 24 * 3_600_000;

/** The step after `step`, due `wait_days` after `fromMs`; null after the last. */
export function nextStepAfter(sequence: Sequence, step: number, fromMs: number) {
  const next = sequence.steps[step + 1];
  return next ? { step: step + 1, dueAt: new Date(fromMs + next.wait_days * dayMs) } : null;
}
