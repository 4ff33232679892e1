import { z } from 'zod';
import { dateTime, uuid } from './common.ts';

export const memberRoles = ['owner', 'admin', 'member'] as const;

export const member = z
  .object({
    id: uuid.describe("The member's user id: give it as `user_id` to POST /api/keys to make a key for them."),
    email: z.string().describe("The member's email address."),
    name: z.string().describe('Display name.'),
    role: z.enum(memberRoles).describe('`owner` (made with the workspace; cannot be removed), `admin` or `member`.'),
    created_at: dateTime,
  })
  .meta({ id: 'Member' });

export const listMembersOutput = z.object({
  members: z.array(member).describe('Oldest first, the owner first.'),
  seats: z
    .object({
      used: z.int().describe('Members now, the owner included.'),
      limit: z.int().describe("The plan's seats: free 1, starter 3, pro 10, business 50."),
    })
    .describe("The plan's seats."),
});

export const addMemberInput = z
  .strictObject({
    email: z.email().max(320).describe('Their address.'),
    role: z.enum(['admin', 'member']),
    name: z.string().trim().min(1).max(120).optional().describe('Display name.'),
  })
  .meta({ examples: [{ email: 'grace@acme.com', role: 'member', name: 'Grace Hopper' }] });

export const memberOutput = z.object({ member });
export const memberIdInput = z.object({ id: uuid.describe("The member's id.") });
export const removeMemberOutput = z.object({
  ok: z.boolean().describe('True when the member was removed.'),
  id: uuid.describe("The removed member's id."),
  keys_revoked: z.int().describe('Their API keys revoked with them.'),
});
