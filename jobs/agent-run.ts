import { z } from 'zod';
import { settings } from '../src/config.ts';
import { giveUpRun } from '../src/agents/run/run-lifecycle.ts';
import { runAgent } from '../src/agents/run/run-agent.ts';
import { defineJob } from './job-definition.ts';

/**
 * Works on one agent run until it finishes or pauses; queued when the run
 * starts and again when a reply resumes it. A worker that dies is taken
 * over after the lock lifetime and goes on from the last recorded step;
 * three starts at most, then the run fails.
 */
export const agentRunJob = defineJob({
  name: 'agent.run',
  payload: z.object({ runId: z.uuid() }),
  retries: 2,
  lockLifetimeMs: () => settings().AGENT_LOCK_LIFETIME_MS,
  handle: ({ runId }) => runAgent(runId),
  giveUp: ({ runId }, reason) => giveUpRun(runId, reason.message),
});
