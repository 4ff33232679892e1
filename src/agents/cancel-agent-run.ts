import { agentRun, agentRunIdInput } from '../../schema/agents.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { cancelAgentRun } from './agents.service.ts';

export const cancelAgentRunProcedure = apiProcedure
  .meta({
    permission: 'agents',
    errors: ['not_found', 'conflict'],
    openapi: {
      method: 'POST',
      path: '/api/agents/runs/{id}/cancel',
      tags: ['Agent'],
      summary: 'Cancel an agent run',
      description:
        'Cancels a queued, paused or working run (a working run stops between steps, keeping the leads it saved); 409 when it has already finished.',
    },
  })
  .input(agentRunIdInput)
  .output(agentRun)
  .mutation(({ ctx, input }) => cancelAgentRun(ctx.principal.workspaceId, input.id));
