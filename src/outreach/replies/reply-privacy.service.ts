import type { ReplyOut } from '../../../schema/outreach/replies.ts';
import { escapeRegex, sameTextAnyCase } from '../../db/exact-text.ts';
import { toReply } from './list-replies.service.ts';
import { AnalysisPending, Reply, SoftBounceDay, type ReplyDoc } from './reply.model.ts';

/** The workspace's replies from `address`, bounces and complaints about it, and replies matched to the leads `leadIds`. */
const namingFilter = (workspaceId: string, address: string, leadIds: string[]) => ({
  workspaceId,
  $or: [
    { fromEmail: sameTextAnyCase(address) },
    { bouncedEmail: sameTextAnyCase(address) },
    ...(leadIds.length ? [{ leadId: { $in: leadIds } }] : []),
  ],
});

/** Them, newest first, as the API shows a reply (with its analysis, whatever the plan: it is the person's data). */
export async function repliesNaming(workspaceId: string, address: string, leadIds: string[]): Promise<ReplyOut[]> {
  const docs = await Reply.find(namingFilter(workspaceId, address, leadIds))
    .sort({ receivedAt: -1 })
    .lean<ReplyDoc[]>();
  return docs.map((doc) => toReply(doc, true));
}

/**
 * Deletes them, their waiting analyses, and the address's soft-bounce counts (kept under its name); answers how many
 * replies. The marks that an effect was counted stay: they hold reply ids only, and keep a reply read again from
 * being counted twice.
 */
export async function eraseRepliesNaming(workspaceId: string, address: string, leadIds: string[]): Promise<number> {
  const ids = (await Reply.find(namingFilter(workspaceId, address, leadIds), { _id: 1 }).lean<Array<{ _id: string }>>()).map(
    (doc) => doc._id,
  );
  if (ids.length) {
    await AnalysisPending.deleteMany({ _id: { $in: ids } });
    await Reply.deleteMany({ workspaceId, _id: { $in: ids } });
  }
  await SoftBounceDay.deleteMany({ _id: { $regex: `^${escapeRegex(`${workspaceId}:${address.trim().toLowerCase()}:`)}` } });
  return ids.length;
}
