import { agentRunIdInput, agentRunWithArtifacts } from '../../schema/agents.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getAgentRun } from './agents.service.ts';

export const getAgentRunProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/agents/runs/{id}',
      tags: ['Agent'],
      summary: 'An agent run with its artifacts',
      description:
        'A finished run lists its files (`leads.csv`, and `result.json` with an output schema) with download URLs signed for one hour.',
    },
  })
  .input(agentRunIdInput)
  .output(agentRunWithArtifacts)
  .query(({ ctx, input }) => getAgentRun(ctx.principal.workspaceId, input.id));
