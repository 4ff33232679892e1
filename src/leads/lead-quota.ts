import { AppError } from '../errors/app-error.ts';
import { Lead, LeadQuota } from './lead.models.ts';

/**
 * The stored-lead counter behind the plan cap. Archived leads do not count
 * (archiving is how a full workspace makes room). Slots are reserved by a
 * conditional increment before leads are written, so two concurrent
 * imports cannot overshoot the cap together.
 */
async function ensureQuota(workspaceId: string) {
  if (await LeadQuota.exists({ _id: workspaceId })) return;
  const stored = await Lead.countDocuments({ workspaceId, archivedAt: null });
  await LeadQuota.create({ _id: workspaceId, stored }).catch((error: { code?: number }) => {
    if (error.code !== 11000) throw error;
  });
}

export async function storedLeadCount(workspaceId: string): Promise<number> {
  await ensureQuota(workspaceId);
  const quota = await LeadQuota.findById(workspaceId).lean();
  return quota?.stored ?? 0;
}

/** Reserves `count` slots if they fit under `limit`. Call inside withKeyLock(`leads:<workspace>`). */
export async function tryReserveLeadSlots(workspaceId: string, count: number, limit: number): Promise<boolean> {
  if (count <= 0) return true;
  await ensureQuota(workspaceId);
  const reserved = await LeadQuota.updateOne({ _id: workspaceId, stored: { $lte: limit - count } }, { $inc: { stored: count } });
  return reserved.modifiedCount === 1;
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
