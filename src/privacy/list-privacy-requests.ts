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
      summary: 'Audit of privacy requests (no addresses)',
    },
  })
  .input(noInput)
  .output(listPrivacyRequestsOutput)
  .query(async ({ ctx }) => listPrivacyRequests(ctx.principal.workspaceId));
