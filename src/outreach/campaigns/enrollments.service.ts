import { z } from 'zod';
import { now } from '../../clock.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { AppError } from '../../errors/app-error.ts';
import { leadsForOutreach, recordLeadActivity, type OutreachLead } from '../../leads/index.ts';
import { suppressedAmong, type ListedAddresses } from '../suppressions/suppressions.service.ts';
import { countForCampaign } from './campaign-progress.ts';
import { Campaign } from '../campaign-record/campaign.model.ts';
import { getCampaignDoc } from './campaigns.service.ts';
import { Enrollment } from './enrollment.model.ts';

type SkipReason = 'suppressed' | 'unsubscribed' | 'archived' | 'already_enrolled' | 'no_email' | 'invalid_email' | 'in_other_campaign';
export type EnrollmentSkipCounts = Record<SkipReason, number>;

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

/** The leads among these with an active enrollment in another campaign than `campaignId` (read from the lead index). */
async function activeElsewhere(workspaceId: string, campaignId: string, leadIds: string[]): Promise<Set<string>> {
  if (!leadIds.length) return new Set();
  const others = await Enrollment.find(
    { workspaceId, leadId: { $in: leadIds }, status: 'active', campaignId: { $ne: campaignId } },
    { leadId: 1 },
  ).lean<Array<{ leadId: string }>>();
  return new Set(others.map((other) => other.leadId));
}

export interface EnrollOptions {
  /** Leave out leads with an active enrollment in another campaign of the workspace (`in_other_campaign`). */
  skipIfInOtherCampaign?: boolean;
  /** The campaign the leads are moved from (recorded on their enrollments here). */
  movedFrom?: string;
}

/**
 * Enrolls leads in a campaign, each once (the enrollment's id is the
 * campaign and the lead, so a repeat is refused by the store itself), and
 * says why each other lead was left out: the leads and the do-not-contact
 * list read once, the enrollments written with one insert. An archived
 * campaign takes none; a completed one becomes active again. `leadIds`
 * answers the leads enrolled now.
 */
export async function enrollLeads(workspaceId: string, campaignId: string, leadIds: string[], options: EnrollOptions = {}) {
  const campaign = await getCampaignDoc(workspaceId, campaignId);
  if (campaign.status === 'archived')
    throw new AppError('conflict', 'An archived campaign takes no new leads', { status: campaign.status });
  const leads = await leadsForOutreach(workspaceId, leadIds);
  const suppressed = await suppressedAmong(
    workspaceId,
    [...leads.values()].flatMap((lead) => (lead.email ? [lead.email] : [])),
  );
  const skipped: EnrollmentSkipCounts = {
    suppressed: 0,
    unsubscribed: 0,
    archived: 0,
    already_enrolled: 0,
    no_email: 0,
    invalid_email: 0,
    in_other_campaign: 0,
  };
  const allowed: string[] = [];
  for (const leadId of new Set(leadIds)) {
    const reason = refusal(leads.get(leadId), suppressed);
    if (reason) skipped[reason]++;
    else allowed.push(leadId);
  }
  const elsewhere = options.skipIfInOtherCampaign ? await activeElsewhere(workspaceId, campaignId, allowed) : new Set<string>();
  skipped.in_other_campaign = elsewhere.size;
  const enrollable = allowed.filter((leadId) => !elsewhere.has(leadId));
  const at = now();
  let refused = new Set<number>();
  try {
    if (enrollable.length) {
      await Enrollment.insertMany(
        enrollable.map((leadId) => ({
          _id: `${campaignId}:${leadId}`,
          workspaceId,
          campaignId,
          leadId,
          nextDueAt: at,
          movedFrom: options.movedFrom ?? null,
        })),
        { ordered: false },
      );
    }
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    const writeErrors = (error as { writeErrors?: Array<{ index?: number; err?: { index: number } }> }).writeErrors ?? [];
    refused = new Set(writeErrors.map((e) => (e.err?.index ?? e.index)!));
    skipped.already_enrolled += refused.size;
  }
  const enrolledIds = enrollable.filter((_, index) => !refused.has(index));
  if (enrolledIds.length) {
    await countForCampaign(campaignId, { enrolled: enrolledIds.length });
    if (campaign.status === 'completed') await Campaign.updateOne({ _id: campaignId, status: 'completed' }, { $set: { status: 'active' } });
    await recordLeadActivity(
      enrolledIds.map((leadId) => ({
        id: `${campaignId}:${leadId}:enrolled`,
        workspaceId,
        leadId,
        type: 'outreach.enrolled',
        at,
        campaignId,
      })),
    );
  }
  return { enrolled: enrolledIds.length, skipped, leadIds: enrolledIds };
}
