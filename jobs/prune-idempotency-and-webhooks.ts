import { z } from 'zod';
import { pruneIdempotencyRecords } from '../src/idempotency/idempotency.service.ts';
import { pruneDeliveries } from '../src/webhooks/deliveries.ts';
import { defineJob } from './job-definition.ts';

/** Idempotency keys past their 24 hours, and webhook deliveries past their 30 days, go (FerretDB has no TTL indexes). */
export const pruneIdempotencyAndWebhooksJob = defineJob({
  name: 'idempotency-and-webhooks.prune',
  payload: z.object({}),
  retries: 0,
  every: '1 hour',
  handle: async () => {
    await pruneIdempotencyRecords();
    await pruneDeliveries();
  },
});
