import { agentRunsOutput, listAgentRunsInput } from '../../schema/agents.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listAgentRuns } from './agents.service.ts';

export const listAgentRunsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/agents/runs',
      tags: ['Agent'],
      summary: 'List agent runs (an array, newest first, without artifacts)',
      description: "The workspace's runs of the credential's brand by default; `brand=all` widens to every brand.",
    },
  })
  .input(listAgentRunsInput)
  .output(agentRunsOutput)
  .query(({ ctx, input }) => listAgentRuns(ctx.principal, input));
