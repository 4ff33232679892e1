import { fillEndpointCacheSubscriber } from './fill-endpoint-cache.ts';
import type { Subscriber } from './subscriber-definition.ts';
import { webhooksFanOutSubscriber } from './webhooks-fan-out.ts';

/** Every subscriber to domain events (src/events/event-types.ts), called by the event dispatcher for each event of its types. */
export const subscribers: Subscriber[] = [fillEndpointCacheSubscriber, webhooksFanOutSubscriber];
