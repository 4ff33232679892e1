import type { z } from 'zod';
import type { addMemberInput, listMembersOutput, member } from '../../schema/members.ts';
import { revokeUserApiKeys } from '../auth/api-key.service.ts';
import { revokeUserOAuth } from '../oauth/index.ts';
import { addMember, listMembers, removableMember, removeMember, seatAllowance } from '../workspaces/index.ts';

type MemberOut = z.infer<typeof member>;

const toMember = (user: Awaited<ReturnType<typeof listMembers>>[number]): MemberOut => ({
  id: user._id,
  email: user.email,
  name: user.name,
  role: user.role,
  created_at: user.createdAt.toISOString(),
});

export async function membersOf(workspaceId: string): Promise<z.infer<typeof listMembersOutput>> {
  const [users, seats] = await Promise.all([listMembers(workspaceId), seatAllowance(workspaceId)]);
  return { members: users.map(toMember), seats };
}

export const inviteMember = async (workspaceId: string, input: z.infer<typeof addMemberInput>): Promise<MemberOut> =>
  toMember(await addMember(workspaceId, input));

/**
 * Revokes a member's API keys and OAuth grants and tokens, then removes the member: every surface refuses their keys
 * and tokens from the next request, and a failure in between leaves a member without credentials (removed when asked
 * again), never credentials without a member.
 */
export async function dismissMember(workspaceId: string, id: string): Promise<{ ok: true; id: string; keys_revoked: number }> {
  await removableMember(workspaceId, id);
  const revoked = await revokeUserApiKeys(workspaceId, id);
  await revokeUserOAuth(id);
  await removeMember(workspaceId, id);
  return { ok: true, id, keys_revoked: revoked };
}
