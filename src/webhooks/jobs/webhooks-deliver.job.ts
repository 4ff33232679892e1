import { z } from 'zod';
import { settings } from '../../config.ts';
import { defineJobContract } from '../../jobs/job-contract.ts';

/** One attempt of a webhook delivery; the next is queued for its time by this one. */
export const webhooksDeliverJob = defineJobContract({
  name: 'webhooks.deliver',
  payload: z.object({ deliveryId: z.uuid(), attempt: z.int().min(0) }),
  retries: 2,
  lockLifetimeMs: () => settings().WEBHOOK_LOCK_LIFETIME_MS,
});
