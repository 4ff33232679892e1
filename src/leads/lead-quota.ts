import { updateIfMatches } from '../db/update-if-matches.ts';
import { AppError } from '../errors/app-error.ts';
import { Lead, LeadQuota } from './lead.models.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';

/**
 * The lead counters: `stored` is behind the plan cap (archived leads do not
 * count; archiving is how a full workspace makes room). Slots are reserved
 * by a conditional increment before leads are written, so two concurrent
 * imports cannot overshoot the cap together. `total` counts every lead, so
 * the list need not count the whole workspace on each request.
 */
export async function leadCounts(workspaceId: string): Promise<{ stored: number; total: number }> {
  const quota = await LeadQuota.findById(workspaceId).lean();
  if (quota) return { stored: quota.stored, total: quota.total };
  // First use (or data written before the counters existed): count once and keep counting from there.
  const [stored, total] = await Promise.all([Lead.countDocuments({ workspaceId, archivedAt: null }), Lead.countDocuments({ workspaceId })]);
  await LeadQuota.create({ _id: workspaceId, stored, total }).catch((error: unknown) => {
    if (!isDuplicateKey(error)) throw error;
  });
  return leadCounts(workspaceId);
}

export const storedLeadCount = async (workspaceId: string) => (await leadCounts(workspaceId)).stored;

/** Leads written (positive) or deleted (negative), archived or not. */
export async function countLeadsWritten(workspaceId: string, delta: number): Promise<void> {
  if (delta !== 0) await LeadQuota.updateOne({ _id: workspaceId }, { $inc: { total: delta } });
}

/** Reserves `count` slots if they fit under `limit`. Call inside withKeyLock(`leads:<workspace>`). */
export async function tryReserveLeadSlots(workspaceId: string, count: number, limit: number): Promise<boolean> {
  if (count <= 0) return true;
  const reserved = () => updateIfMatches(LeadQuota, workspaceId, { stored: { $lte: limit - count } }, { $inc: { stored: count } });
  if (await reserved()) return true;
  // No counters yet for this workspace: create them, then try once more.
  const { stored } = await leadCounts(workspaceId);
  return stored + count <= limit && (await reserved()) !== null;
}

/** Like tryReserveLeadSlots, but a shortfall is a lead_limit error. */
export async function reserveLeadSlots(workspaceId: string, count: number, limit: number): Promise<void> {
  if (await tryReserveLeadSlots(workspaceId, count, limit)) return;
  const used = await storedLeadCount(workspaceId);
  throw new AppError('lead_limit', `Lead storage is full: ${used} of ${limit} stored, ${count} more requested. Archive leads or upgrade.`, {
    used,
    limit,
  });
}

export async function releaseLeadSlots(workspaceId: string, count: number): Promise<void> {
  if (count <= 0) return;
  await LeadQuota.updateOne({ _id: workspaceId }, { $inc: { stored: -count } });
}
