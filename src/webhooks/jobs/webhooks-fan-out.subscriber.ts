import { eventTypes } from '../../events/event-types.ts';
import { defineSubscriber } from '../../events/subscriber.ts';
import { fanOut } from '../deliveries.ts';

/**
 * Every event becomes one delivery per endpoint of its workspace that
 * subscribes to it, its first attempt made at once (a dispatcher that died
 * mid-attempt leaves the event in the outbox, and the next one makes the
 * attempt again, with the same webhook-id).
 */
export const webhooksFanOutSubscriber = defineSubscriber({
  name: 'webhooks.fan-out',
  on: eventTypes,
  handle: (event) => fanOut([event]),
  handleMany: fanOut,
});
