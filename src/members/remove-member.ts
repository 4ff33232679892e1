import { memberIdInput, removeMemberOutput } from '../../schema/members.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { dismissMember } from './members.service.ts';

export const removeMemberProcedure = apiProcedure
  .meta({
    permission: '*',
    errors: ['conflict'],
    openapi: {
      method: 'DELETE',
      path: '/api/members/{id}',
      tags: ['Account'],
      summary: 'Remove a member, revoking their keys (the owner: 409)',
    },
  })
  .input(memberIdInput)
  .output(removeMemberOutput)
  .mutation(async ({ ctx, input }) => dismissMember(ctx.principal.workspaceId, input.id));
