import { giveUpRun, runAgent } from '../src/agents/index.ts';
import { agentRunJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/**
 * Works on one agent run until it finishes or pauses; queued when the run
 * starts and again when a reply resumes it. A worker that dies is taken
 * over after the lock lifetime and goes on from the last recorded step;
 * three starts at most, then the run fails.
 */
export const agentRunHandler = handleJob(agentRunJob, {
  handle: ({ runId }) => runAgent(runId),
  giveUp: ({ runId }, reason) => giveUpRun(runId, reason.message),
});
