import { handleJob } from '../../jobs/job-handler.ts';
import { log } from '../../logger.ts';
import { runOutreachPass } from '../delivery/engine.ts';
import { closeTransports } from '../delivery/mailer.ts';
import { outreachTickJob } from './outreach-tick.job.ts';

/** The sending engine, every OUTREACH_TICK_MS. */
export const outreachTickHandler = handleJob(outreachTickJob, {
  async handle() {
    const report = await runOutreachPass();
    if (Object.keys(report).length) log.info('outreach pass', report);
  },
  onWorkerStop: closeTransports,
});
