import { router } from '../trpc/init.ts';
import { cancelAgentRunProcedure } from './cancel-agent-run.ts';
import { getAgentRunProcedure } from './get-agent-run.ts';
import { listAgentRunsProcedure } from './list-agent-runs.ts';
import { replyToAgentRunProcedure } from './reply-to-agent-run.ts';
import { startAgentRunProcedure } from './start-agent-run.ts';

export const agentsRouter = router({
  start: startAgentRunProcedure,
  runs: listAgentRunsProcedure,
  run: getAgentRunProcedure,
  reply: replyToAgentRunProcedure,
  cancel: cancelAgentRunProcedure,
});
