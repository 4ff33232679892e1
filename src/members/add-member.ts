import { addMemberInput, memberOutput } from '../../schema/members.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { inviteMember } from './members.service.ts';

export const addMemberProcedure = apiProcedure
  .meta({
    permission: '*',
    successStatus: 201,
    errors: ['conflict', 'seat_limit'],
    openapi: {
      method: 'POST',
      path: '/api/members',
      tags: ['Account'],
      summary: 'Add a member to the workspace',
      description:
        'Seats per plan: free 1, starter 3, pro 10, business 50, the owner included; past them 403 `seat_limit` with `used` and `limit`. ' +
        '409 for an address already a member. Make them a key with POST /api/keys and `user_id`.',
    },
  })
  .input(addMemberInput)
  .output(memberOutput)
  .mutation(async ({ ctx, input }) => ({ member: await inviteMember(ctx.principal.workspaceId, input) }));
