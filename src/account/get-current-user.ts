import { noInput } from '../../schema/common.ts';
import { currentUserOutput } from '../../schema/account.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getUser } from '../workspaces/index.ts';

export const getCurrentUser = apiProcedure
  .meta({
    permission: 'any',
    openapi: {
      method: 'GET',
      path: '/api/user',
      tags: ['Account'],
      summary: 'Validate the key and show its account',
      description: 'The cheapest call to confirm that a credential works. Any valid key may call it.',
    },
  })
  .input(noInput)
  .output(currentUserOutput)
  .query(async ({ ctx }) => {
    const { principal } = ctx;
    const user = await getUser(principal.workspaceId, principal.userId);
    return {
      success: true,
      data: {
        userId: user._id,
        email: user.email,
        name: user.name,
        apiKey: { id: principal.id, scopes: principal.scopes, status: principal.status, rateLimit: ctx.rateLimitPerMinute },
        createdAt: user.createdAt.toISOString(),
      },
    };
  });
