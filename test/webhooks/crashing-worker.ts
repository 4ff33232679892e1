/**
 * The service's worker (`src/main.ts worker`) that kills itself (SIGKILL) as it is about to queue attempt
 * CRASH_BEFORE_QUEUING_ATTEMPT of a webhook delivery: a crash between an attempt's record and its next attempt's job,
 * for delivery-crash.test.ts. Everything else is the real worker.
 */
import { Job } from 'agenda';

const crashAt = Number(process.env.CRASH_BEFORE_QUEUING_ATTEMPT);
const save = Job.prototype.save;
Job.prototype.save = function (this: Job) {
  const data = this.attrs.data as { attempt?: number } | undefined;
  if (this.attrs.name === 'webhooks.deliver' && data?.attempt === crashAt) process.kill(process.pid, 'SIGKILL');
  return save.call(this);
};

process.argv[2] = 'worker';
await import('../../src/main.ts');
