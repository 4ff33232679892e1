import { log } from '../src/logger.ts';
import { runOutreachPass, closeTransports } from '../src/outreach/index.ts';
import { outreachTickJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/** The sending engine, every OUTREACH_TICK_MS. */
export const outreachTickHandler = handleJob(outreachTickJob, {
  async handle() {
    const report = await runOutreachPass();
    if (Object.keys(report).length) log.info('outreach pass', report);
  },
  onWorkerStop: closeTransports,
});
