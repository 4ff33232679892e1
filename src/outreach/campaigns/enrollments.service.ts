import { z } from 'zod';
import { now } from '../../clock.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { AppError } from '../../errors/app-error.ts';
import { leadsForOutreach, type OutreachLead } from '../../leads/index.ts';
import { suppressedAmong, type ListedAddresses } from '../suppressions/suppressions.service.ts';
import { countForCampaign } from './campaign-progress.ts';
import { Campaign } from '../campaign-record/campaign.model.ts';
import { getCampaignDoc } from './campaigns.service.ts';
import { Enrollment } from './enrollment.model.ts';

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
