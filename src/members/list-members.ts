import { noInput } from '../../schema/common.ts';
import { listMembersOutput } from '../../schema/members.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { membersOf } from './members.service.ts';

export const listMembersProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/members', tags: ['Account'], summary: "List the workspace's members and its seats" },
  })
  .input(noInput)
  .output(listMembersOutput)
  .query(async ({ ctx }) => membersOf(ctx.principal.workspaceId));
