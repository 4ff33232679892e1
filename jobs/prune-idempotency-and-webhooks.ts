import { pruneIdempotencyRecords } from '../src/idempotency/idempotency.service.ts';
import { pruneDeliveries } from '../src/webhooks/index.ts';
import { pruneIdempotencyAndWebhooksJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/** Idempotency keys past their 24 hours, and webhook deliveries past their 30 days, go (FerretDB has no TTL indexes). */
export const pruneIdempotencyAndWebhooksHandler = handleJob(pruneIdempotencyAndWebhooksJob, {
  handle: async () => {
    await pruneIdempotencyRecords();
    await pruneDeliveries();
  },
});
