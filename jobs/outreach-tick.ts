import { z } from 'zod';
import { settings } from '../src/config.ts';
import { log } from '../src/logger.ts';
import { runOutreachPass } from '../src/outreach/sending/engine.ts';
import { closeTransports } from '../src/outreach/sending/mailer.ts';
import { defineJob } from './job-definition.ts';

/** The sending engine, every OUTREACH_TICK_MS. */
export const outreachTickJob = defineJob({
  name: 'outreach.tick',
  payload: z.object({}),
  retries: 0,
  every: () => settings().OUTREACH_TICK_MS,
  lockLifetimeMs: () => 10 * 60_000,
  async handle() {
    const report = await runOutreachPass();
    if (Object.keys(report).length) log.info('outreach pass', report);
  },
  onWorkerStop: closeTransports,
});
