import { noInput } from '../../schema/common.ts';
import { listPrivacyRequestsOutput } from '../../schema/privacy.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listPrivacyRequests } from './privacy.service.ts';

export const listPrivacyRequestsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/privacy/requests',
      tags: ['Privacy'],
      summary: 'The audit of privacy requests: who, when, counts (never the address)',
    },
  })
  .input(noInput)
  .output(listPrivacyRequestsOutput)
  .query(async ({ ctx }) => listPrivacyRequests(ctx.principal.workspaceId));
