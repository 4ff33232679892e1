import { z } from 'zod';
import { now } from '../../clock.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { AppError } from '../../errors/app-error.ts';
import { leadsForOutreach, type OutreachLead } from '../../leads/index.ts';
import { setEach } from '../../db/lean-update.ts';
import { suppressedAmong, type ListedAddresses } from '../suppressions/suppressions.service.ts';
import { countForCampaign } from './campaign-progress.ts';
import { Campaign, type CampaignDoc } from './campaign.model.ts';
import { getCampaignDoc } from './campaigns.service.ts';
import { Enrollment, type EnrollmentDoc, type EnrollmentOutcome } from './enrollment.model.ts';

type SkipReason = 'suppressed' | 'unsubscribed' | 'archived' | 'already_enrolled' | 'no_email' | 'invalid_email';

const sendable = z.email();

/** Why a lead may not be enrolled, or null when it may (`suppressed`: the addresses the list holds). */
function refusal(lead: OutreachLead | undefined, suppressed: ListedAddresses): SkipReason | null {
  if (!lead?.email) return 'no_email';
  if (!sendable.safeParse(lead.email).success || lead.emailStatus === 'invalid') return 'invalid_email';
  if (lead.unsubscribed) return 'unsubscribed';
  if (lead.archived || lead.status === 'disqualified') return 'archived';
  if (suppressed.has(lead.email)) return 'suppressed';
  return null;
}

/**
 * Enrolls leads in a campaign, each once (the enrollment's id is the
 * campaign and the lead, so a repeat is refused by the store itself), and
 * says why each other lead was left out: the leads and the do-not-contact
 * list read once, the enrollments written with one insert. An archived
 * campaign takes none; a completed one becomes active again.
 */
export async function enrollLeads(workspaceId: string, campaignId: string, leadIds: string[]) {
  const campaign = await getCampaignDoc(workspaceId, campaignId);
  if (campaign.status === 'archived')
    throw new AppError('conflict', 'An archived campaign takes no new leads', { status: campaign.status });
  const leads = await leadsForOutreach(workspaceId, leadIds);
  const suppressed = await suppressedAmong(
    workspaceId,
    [...leads.values()].flatMap((lead) => (lead.email ? [lead.email] : [])),
  );
  const skipped: Record<SkipReason, number> = {
    suppressed: 0,
    unsubscribed: 0,
    archived: 0,
    already_enrolled: 0,
    no_email: 0,
    invalid_email: 0,
  };
  const enrollable: string[] = [];
  for (const leadId of new Set(leadIds)) {
    const reason = refusal(leads.get(leadId), suppressed);
    if (reason) skipped[reason]++;
    else enrollable.push(leadId);
  }
  const at = now();
  let enrolled = enrollable.length;
  try {
    if (enrollable.length) {
      await Enrollment.insertMany(
        enrollable.map((leadId) => ({ _id: `${campaignId}:${leadId}`, workspaceId, campaignId, leadId, nextDueAt: at })),
        { ordered: false },
      );
    }
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    const repeats = (error as { writeErrors?: unknown[] }).writeErrors?.length ?? 0;
    enrolled -= repeats;
    skipped.already_enrolled += repeats;
  }
  if (enrolled) {
    await countForCampaign(campaignId, { enrolled });
    if (campaign.status === 'completed') await Campaign.updateOne({ _id: campaignId, status: 'completed' }, { $set: { status: 'active' } });
  }
  return { enrolled, skipped };
}

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
