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
      summary: 'Add a member',
      description: 'Seats: free 1, starter 3, pro 10, business 50 (403 `seat_limit`).',
    },
  })
  .input(addMemberInput)
  .output(memberOutput)
  .mutation(async ({ ctx, input }) => ({ member: await inviteMember(ctx.principal.workspaceId, input) }));
