import { z } from 'zod';
import { settings } from '../../config.ts';
import { defineJobContract } from '../../jobs/job-contract.ts';

/** Runs an agent run to its end (or its next pause). */
export const agentRunJob = defineJobContract({
  name: 'agent.run',
  payload: z.object({ runId: z.uuid() }),
  retries: 2,
  lockLifetimeMs: () => settings().AGENT_LOCK_LIFETIME_MS,
});
