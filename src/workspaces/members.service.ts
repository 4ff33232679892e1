import { isDuplicateKey } from '../db/duplicate-key.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { planRules } from './plans.ts';
import { User, type UserDoc } from './workspace.models.ts';
import { getWorkspace } from './workspace-lookup.ts';

/** A workspace's users (its members), oldest first: the owner, then the others as they were added. */
export async function listMembers(workspaceId: string): Promise<UserDoc[]> {
  return User.find({ workspaceId }).sort({ createdAt: 1, _id: 1 }).lean<UserDoc[]>();
}

/** Members now against the plan's seats, the owner included. */
export async function seatAllowance(workspaceId: string): Promise<{ used: number; limit: number }> {
  const [workspace, used] = await Promise.all([getWorkspace(workspaceId), User.countDocuments({ workspaceId })]);
  return { used, limit: planRules[workspace.plan].seats };
}

/**
 * Adds a member within the plan's seats (403 seat_limit with `used` and `limit` past them; 409 naming `email` for an
 * address already a member). Stored first and counted after, as API keys are: when the count, its own included, is
 * past the limit it is removed again, so concurrent additions never end above the limit.
 */
export async function addMember(workspaceId: string, input: { email: string; name?: string; role: 'admin' | 'member' }): Promise<UserDoc> {
  const email = input.email.trim();
  let member: UserDoc;
  try {
    const created = await User.create({
      workspaceId,
      email,
      emailKey: email.toLowerCase(),
      name: input.name?.trim() || email.split('@')[0]!,
      role: input.role,
    });
    member = created.toObject() as UserDoc;
  } catch (error) {
    if (isDuplicateKey(error)) throw new AppError('conflict', 'email: already a member of this workspace', { field: 'email' });
    throw error;
  }
  const { used, limit } = await seatAllowance(workspaceId);
  if (used > limit) {
    await User.deleteOne({ _id: member._id });
    throw new AppError('seat_limit', `The plan has ${limit} seats and ${used - 1} are taken: remove a member or upgrade`, {
      used: used - 1,
      limit,
    });
  }
  return member;
}

/** Removes a member (404 for another workspace's or none; 409 for the owner, who cannot be removed). */
export async function removeMember(workspaceId: string, id: string): Promise<UserDoc> {
  const member = await removableMember(workspaceId, id);
  await User.deleteOne({ _id: id, workspaceId, role: { $ne: 'owner' } });
  return member;
}

/** A member that may be removed: 404 for none in the workspace, 409 for the owner. */
export async function removableMember(workspaceId: string, id: string): Promise<UserDoc> {
  const member = await User.findOne({ _id: id, workspaceId }).lean<UserDoc>();
  if (!member) throw notFound('Member', 'id');
  if (member.role === 'owner') throw new AppError('conflict', 'id: the owner cannot be removed', { field: 'id' });
  return member;
}
