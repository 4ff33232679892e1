import type { Lead as LeadOut } from '../../schema/leads.ts';
import { derivedKeys, toLead } from './lead-mapper.ts';
import { Lead, type LeadDoc } from './lead.models.ts';

/** The key a lead with this address (any case) is stored under: one lead per address in a workspace. */
const keyOf = (address: string) => derivedKeys({ email: address }, '').emailKey;

/** The workspace's leads with this address (archived ones too), as the API shows a lead. */
export async function leadsWithAddress(workspaceId: string, address: string): Promise<LeadOut[]> {
  const docs = await Lead.find({ workspaceId, emailKey: keyOf(address) }).lean<LeadDoc[]>();
  return docs.map(toLead);
}

/** Deletes the workspace's leads with this address (an erasure); answers their ids. Past lead searches keep their counts. */
export async function eraseLeadsWithAddress(workspaceId: string, address: string): Promise<string[]> {
  const docs = await Lead.find({ workspaceId, emailKey: keyOf(address) }, { _id: 1 }).lean<Array<{ _id: string }>>();
  const ids = docs.map((doc) => doc._id);
  if (ids.length) await Lead.deleteMany({ workspaceId, _id: { $in: ids } });
  return ids;
}
