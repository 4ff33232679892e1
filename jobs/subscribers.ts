import { fillEndpointCacheSubscriber } from './fill-endpoint-cache.ts';
import type { Subscriber } from './subscriber-definition.ts';
import { webhooksFanOutSubscriber } from './webhooks-fan-out.ts';

/** Every subscriber to domain events (src/events/event-types.ts), each run as its own job per event. */
export const subscribers: Subscriber[] = [fillEndpointCacheSubscriber, webhooksFanOutSubscriber];
