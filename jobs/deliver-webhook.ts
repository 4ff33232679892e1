import { z } from 'zod';
import { settings } from '../src/config.ts';
import { attemptDelivery, giveUpAttempt } from '../src/webhooks/deliveries.ts';
import { defineJob } from './job-definition.ts';

/**
 * One attempt of a webhook delivery; the next is queued for its time by
 * this one. Receivers' failures are recorded, not thrown: a start counted
 * here is a worker that died mid-attempt, retried with the same webhook-id.
 */
export const deliverWebhookJob = defineJob({
  name: 'webhooks.deliver',
  payload: z.object({ deliveryId: z.uuid(), attempt: z.int().min(0) }),
  retries: 2,
  lockLifetimeMs: () => settings().WEBHOOK_LOCK_LIFETIME_MS,
  handle: ({ deliveryId, attempt }) => attemptDelivery(deliveryId, attempt),
  giveUp: ({ deliveryId, attempt }, reason) => giveUpAttempt(deliveryId, attempt, reason.message),
});
