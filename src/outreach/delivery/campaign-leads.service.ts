/** Taking leads out of a campaign, or moving them to another: the enrollments move through enrollment-state.ts. */
import { notFound } from '../../errors/app-error.ts';
import { fieldError } from '../../errors/field-error.ts';
import { now } from '../../clock.ts';
import { recordLeadActivity } from '../../leads/index.ts';
import { getCampaignDoc } from '../campaigns/campaigns.service.ts';
import { enrollLeads } from '../campaigns/enrollments.service.ts';
import { activelyEnrolled, movedInFrom, removeEnrollments } from './enrollment-state.ts';

async function recordRemoved(workspaceId: string, campaignId: string, leadIds: string[], data: Record<string, unknown>) {
  const at = now();
  await recordLeadActivity(
    leadIds.map((leadId) => ({
      id: `${campaignId}:${leadId}:removed`,
      workspaceId,
      leadId,
      type: 'outreach.removed',
      at,
      campaignId,
      data,
    })),
  );
}

/** No further step of the campaign goes to these leads; `progress.removed` counts them. 404 for another workspace's campaign. */
export async function removeLeads(workspaceId: string, campaignId: string, leadIds: string[]) {
  const campaign = await getCampaignDoc(workspaceId, campaignId);
  const unique = [...new Set(leadIds)];
  const removed = await removeEnrollments(campaign._id, unique);
  await recordRemoved(workspaceId, campaign._id, removed, { reason: 'removed' });
  return { removed: removed.length, not_enrolled: unique.length - removed.length };
}

/**
 * Moves the leads active in one campaign to another of the same brand: enrolled there from its first step under its
 * rules (enrollLeads: the same skip reasons), then removed here. A lead the target refuses stays where it is. A move
 * that failed between the two is finished by asking again: the leads it enrolled there (their enrollments record where
 * they came from) are removed here and counted as moved.
 */
export async function moveLeads(workspaceId: string, campaignId: string, leadIds: string[], toCampaignId: string) {
  if (toCampaignId === campaignId)
    throw fieldError({ field: 'to_campaign_id', problem: 'must be another campaign than the one moved from' });
  const from = await getCampaignDoc(workspaceId, campaignId);
  const to = await getCampaignDoc(workspaceId, toCampaignId).catch(() => {
    throw notFound('Campaign', 'to_campaign_id');
  });
  if (to.brandId !== from.brandId)
    throw fieldError({ field: 'to_campaign_id', problem: 'the campaign belongs to another brand than the one moved from' });
  const unique = [...new Set(leadIds)];
  const active = await activelyEnrolled(from._id, unique);
  // Leads an earlier move enrolled there but did not remove here (it failed in between): their move is finished now.
  const resumed = await movedInFrom(to._id, from._id, active);
  const finished = new Set(resumed);
  const left = active.filter((leadId) => !finished.has(leadId));
  const { skipped, leadIds: enrolled } = left.length
    ? await enrollLeads(workspaceId, to._id, left, { movedFrom: from._id })
    : { skipped: null, leadIds: [] as string[] };
  const moved = [...enrolled, ...resumed];
  const removed = await removeEnrollments(from._id, moved);
  await recordRemoved(workspaceId, from._id, removed, { reason: 'moved', to_campaign_id: to._id });
  return {
    moved: moved.length,
    skipped: {
      suppressed: skipped?.suppressed ?? 0,
      unsubscribed: skipped?.unsubscribed ?? 0,
      archived: skipped?.archived ?? 0,
      already_enrolled: skipped?.already_enrolled ?? 0,
      no_email: skipped?.no_email ?? 0,
      invalid_email: skipped?.invalid_email ?? 0,
      not_enrolled: unique.length - active.length,
    },
  };
}
