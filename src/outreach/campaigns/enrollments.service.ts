import { z } from 'zod';
import { now } from '../../clock.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { AppError } from '../../errors/app-error.ts';
import { leadsForOutreach, type OutreachLead } from '../../leads/lead-outreach.service.ts';
import { isSuppressed } from '../suppressions/suppressions.service.ts';
import { countForCampaign } from './campaign-progress.ts';
import { Campaign, type CampaignDoc } from './campaign.model.ts';
import { getCampaignDoc } from './campaigns.service.ts';
import { Enrollment, EnrollmentEnd, type EnrollmentDoc, type EnrollmentOutcome } from './enrollment.model.ts';

type SkipReason = 'suppressed' | 'unsubscribed' | 'archived' | 'already_enrolled' | 'no_email' | 'invalid_email';

const sendable = z.email();

/** Why a lead may not be enrolled, or null when it may. */
async function refusal(workspaceId: string, lead: OutreachLead | undefined): Promise<SkipReason | null> {
  if (!lead?.email) return 'no_email';
  if (!sendable.safeParse(lead.email).success) return 'invalid_email';
  if (lead.unsubscribed) return 'unsubscribed';
  if (lead.archived || lead.status === 'disqualified') return 'archived';
  if (await isSuppressed(workspaceId, lead.email)) return 'suppressed';
  return null;
}

/**
 * Enrolls leads in a campaign, each once (the enrollment's id is the
 * campaign and the lead, so a repeat is refused by the store itself), and
 * says why each other lead was left out. An archived campaign takes none;
 * a completed one becomes active again.
 */
export async function enrollLeads(workspaceId: string, campaignId: string, leadIds: string[]) {
  const campaign = await getCampaignDoc(workspaceId, campaignId);
  if (campaign.status === 'archived') throw new AppError('conflict', 'An archived campaign takes no new leads', { status: campaign.status });
  const leads = await leadsForOutreach(workspaceId, leadIds);
  const skipped: Record<SkipReason, number> = { suppressed: 0, unsubscribed: 0, archived: 0, already_enrolled: 0, no_email: 0, invalid_email: 0 };
  let enrolled = 0;
  for (const leadId of new Set(leadIds)) {
    const reason = await refusal(workspaceId, leads.get(leadId));
    if (reason) {
      skipped[reason]++;
      continue;
    }
    try {
      await Enrollment.create({ _id: `${campaignId}:${leadId}`, workspaceId, campaignId, leadId, nextDueAt: now() });
      enrolled++;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      skipped.already_enrolled++;
    }
  }
  if (enrolled) {
    await countForCampaign(campaignId, { enrolled });
    if (campaign.status === 'completed') await Campaign.updateOne({ _id: campaignId, status: 'completed' }, { $set: { status: 'active' } });
  }
  return { enrolled, skipped };
}

/** A campaign's enrollments whose next step is due, oldest first. */
export const dueEnrollments = (campaign: CampaignDoc, at: Date, limit: number) =>
  Enrollment.find({ campaignId: campaign._id, status: 'active', nextDueAt: { $lte: at } }).sort({ nextDueAt: 1, _id: 1 }).limit(limit).lean<EnrollmentDoc[]>();

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
async function moveOn(enrollment: EnrollmentDoc, next: NextStep, extra: Record<string, unknown> = {}, push?: Record<string, unknown>): Promise<void> {
  await Enrollment.updateOne(
    { _id: enrollment._id, status: 'active', nextStep: enrollment.nextStep },
    { $set: { nextStep: next.step, nextDueAt: next.dueAt, ...extra }, ...(push && { $push: push }) },
  );
}

/**
 * Ends an enrollment once: the first end recorded wins and is counted on the
 * campaign; a later one (a racing worker, a stale copy) re-applies the
 * recorded end and counts nothing. True when this call ended it.
 */
async function endEnrollment(enrollment: Pick<EnrollmentDoc, '_id' | 'campaignId'>, outcome: EnrollmentOutcome, extra: Record<string, unknown> = {}): Promise<boolean> {
  let recorded = outcome;
  let first = true;
  try {
    await EnrollmentEnd.create({ _id: enrollment._id, outcome });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    first = false;
    recorded = ((await EnrollmentEnd.findById(enrollment._id).lean())?.outcome ?? outcome) as EnrollmentOutcome;
  }
  const status = recorded === 'finished' ? { status: 'finished', stopReason: null } : { status: 'stopped', stopReason: recorded };
  await Enrollment.updateOne({ _id: enrollment._id }, { $set: { ...status, ...extra } });
  if (first) await countForCampaign(enrollment.campaignId, { [recorded]: 1 });
  return first;
}

/** The recorded end of an enrollment, if it ended (its status may lag behind after a lost write). */
export const enrollmentEnded = async (enrollmentId: string) => ((await EnrollmentEnd.findById(enrollmentId).lean())?.outcome ?? null) as EnrollmentOutcome | null;

/** Re-applies an end recorded for an enrollment still marked active. */
export const reapplyEnd = (enrollment: EnrollmentDoc, outcome: EnrollmentOutcome) => endEnrollment(enrollment, outcome);

/** The step went out: on to the next (due `wait_days` after it), or the enrollment is finished. */
export async function advanceEnrollment(enrollment: EnrollmentDoc, next: NextStep | null, firstMessageId?: string): Promise<void> {
  const extra = firstMessageId ? { firstMessageId } : {};
  if (next) await moveOn(enrollment, next, extra);
  else await endEnrollment(enrollment, 'finished', extra);
}

/** A step the lead cannot be sent (a merge variable it lacks): recorded, and on to the next step. */
export async function skipStep(enrollment: EnrollmentDoc, reason: string, next: NextStep | null): Promise<void> {
  const skipped = { step: enrollment.nextStep, reason };
  if (next) await moveOn(enrollment, next, {}, { skipped });
  else {
    await Enrollment.updateOne({ _id: enrollment._id }, { $push: { skipped } });
    await endEnrollment(enrollment, 'finished');
  }
}

/** The step is tried again at `dueAt` (a temporary failure). */
export async function deferEnrollment(enrollment: EnrollmentDoc, dueAt: Date): Promise<void> {
  await moveOn(enrollment, { step: enrollment.nextStep, dueAt });
}

/** Nothing more goes to this lead in this campaign. Counted once, by the end recorded first. */
export async function stopEnrollment(enrollment: Pick<EnrollmentDoc, '_id' | 'campaignId'>, reason: StopReason): Promise<void> {
  await endEnrollment(enrollment, reason);
}

/** Stops every active enrollment of a lead, in every campaign (it unsubscribed, bounced, replied). */
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

export async function stopLeadEnrollments(workspaceId: string, leadId: string, reason: StopReason): Promise<void> {
  const enrollments = await Enrollment.find({ workspaceId, leadId, status: 'active' }, { campaignId: 1 }).lean<EnrollmentDoc[]>();
  for (const enrollment of enrollments) await stopEnrollment(enrollment, reason);
}
