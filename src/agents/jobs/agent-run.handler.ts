import { handleJob } from '../../jobs/job-handler.ts';
import { giveUpRun } from '../run/run-lifecycle.ts';
import { runAgent } from '../run/run-agent.ts';
import { agentRunJob } from './agent-run.job.ts';

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
