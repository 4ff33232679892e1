import { replyToAgentRunInput, startAgentRunOutput } from '../../schema/agents.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { replyToAgentRun } from './agents.service.ts';

export const replyToAgentRunProcedure = apiProcedure
  .meta({
    permission: 'agents',
    errors: ['not_found', 'conflict', 'insufficient_credits'],
    openapi: {
      method: 'POST',
      path: '/api/agents/runs/{id}/reply',
      tags: ['Agent'],
      summary: 'Answer or follow up an agent run',
      description:
        'A paused run continues with the message as the answer to its question (`status: "resumed"`, once: a second reply racing it gets 409). ' +
        'A finished run gets a follow-up run in the same conversation, inheriting its context and playbook. ' +
        'A run still working answers 409, unless `interrupt` is true: it is then cancelled and a new run starts with the message.',
    },
  })
  .input(replyToAgentRunInput)
  .output(startAgentRunOutput)
  .mutation(({ ctx, input }) => replyToAgentRun(ctx.principal, input));
