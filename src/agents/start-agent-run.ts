import { startAgentRunInput, startAgentRunOutput } from '../../schema/agents.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { startAgentRun } from './agents.service.ts';

export const startAgentRunProcedure = apiProcedure
  .meta({
    permission: 'agents',
    successStatus: 202,
    errors: ['not_found', 'insufficient_credits'],
    openapi: {
      method: 'POST',
      path: '/api/agents/runs',
      tags: ['Agent'],
      summary: 'Start an agent run',
      description:
        'Queues a run that researches the web for the goal and saves the leads it finds; answers 202 at once. Poll GET /api/agents/runs/{id} until the status is finished. ' +
        'Costs 1 agent credit per 1,000 model tokens (rounded up per model call) and 1 per page fetched; 402 `insufficient_credits` when the workspace has no agent credits and overage is off. ' +
        'Without a configured language model the built-in researcher does the run, and `result_summary` says so.',
    },
  })
  .input(startAgentRunInput)
  .output(startAgentRunOutput)
  .mutation(({ ctx, input }) => startAgentRun(ctx.principal, input));
