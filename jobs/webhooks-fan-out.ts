import { settings } from '../src/config.ts';
import { eventTypes } from '../src/events/event-types.ts';
import { fanOut } from '../src/webhooks/deliveries.ts';
import { defineSubscriber } from './subscriber-definition.ts';

/**
 * Every event becomes one delivery per endpoint of its workspace that
 * subscribes to it, its first attempt made by this job (a dead worker's is
 * made again once the lock lapses, with the same webhook-id).
 */
export const webhooksFanOutSubscriber = defineSubscriber({
  name: 'webhooks.fan-out',
  on: eventTypes,
  retries: 4,
  lockLifetimeMs: () => settings().WEBHOOK_LOCK_LIFETIME_MS,
  handle: fanOut,
});
