import type { z } from 'zod';
import type { addMemberInput, listMembersOutput, member } from '../../schema/members.ts';
import { revokeUserApiKeys } from '../auth/api-key.service.ts';
import { addMember, listMembers, removeMember, seatAllowance } from '../workspaces/index.ts';

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

/** Removes a member and revokes their API keys: every surface refuses them from the next request. */
export async function dismissMember(workspaceId: string, id: string): Promise<{ ok: true; id: string; keys_revoked: number }> {
  await removeMember(workspaceId, id);
  return { ok: true, id, keys_revoked: await revokeUserApiKeys(workspaceId, id) };
}
