import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { releaseTurn, takeTurn } from '../db/turns.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { planRules } from './plans.ts';
import { SeatTurn, User, type UserDoc } from './workspace.models.ts';
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

/** How long a seat turn lasts at most: far longer than one addition takes, short enough that a process that died blocks little. */
const seatTurnMs = 10_000;
/** How long an addition waits for the workspace's seat turn before answering a conflict. */
const seatWaitMs = 30_000;

/**
 * Adds a member within the plan's seats (403 seat_limit with `used` and `limit` past them; 409 naming `email` for an
 * address already a member). The count and the insert are one step: additions to a workspace take turns (db/turns.ts,
 * as the lead cap does), so members added at once on any number of processes fill the free seats, no more, no fewer.
 */
export async function addMember(workspaceId: string, input: { email: string; name?: string; role: 'admin' | 'member' }): Promise<UserDoc> {
  const holder = randomUUID();
  const giveUpAt = Date.now() + seatWaitMs;
  for (let attempt = 0; !(await takeTurn(SeatTurn, workspaceId, holder, seatTurnMs)); attempt++) {
    if (Date.now() > giveUpAt) throw new AppError('conflict', 'Other members are being added to this workspace; try again.');
    await sleep(Math.min(5 * 2 ** Math.min(attempt, 4), 80) * (0.5 + Math.random()));
  }
  try {
    const { used, limit } = await seatAllowance(workspaceId);
    if (used >= limit)
      throw new AppError('seat_limit', `The plan has ${limit} seats and ${used} are taken: remove a member or upgrade`, { used, limit });
    const email = input.email.trim();
    const created = await User.create({
      workspaceId,
      email,
      emailKey: email.toLowerCase(),
      name: input.name?.trim() || email.split('@')[0]!,
      role: input.role,
    }).catch((error: unknown) => {
      if (isDuplicateKey(error)) throw new AppError('conflict', 'email: already a member of this workspace', { field: 'email' });
      throw error;
    });
    return created.toObject() as UserDoc;
  } finally {
    await releaseTurn(SeatTurn, workspaceId, holder);
  }
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
