import { Campaign, type CampaignDoc } from './campaign.model.ts';

/** The names of the workspace's active campaigns that use an inbox or a sequence (which may then not be deleted). */
export async function activeCampaignNamesUsing(workspaceId: string, uses: { inboxId?: string; sequenceId?: string }): Promise<string[]> {
  const campaigns = await Campaign.find({ workspaceId, status: 'active' }, { name: 1, inboxIds: 1, sequenceId: 1 }).lean<CampaignDoc[]>();
  return campaigns
    .filter((campaign) => (uses.inboxId ? campaign.inboxIds.includes(uses.inboxId) : campaign.sequenceId === uses.sequenceId))
    .map((campaign) => campaign.name);
}
