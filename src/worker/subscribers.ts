import { endpointCacheFillSubscriber } from '../endpoints/jobs/endpoint-cache-fill.subscriber.ts';
import type { Subscriber } from '../events/subscriber.ts';
import { webhooksFanOutSubscriber } from '../webhooks/jobs/webhooks-fan-out.subscriber.ts';

/** Every subscriber to domain events (src/events/event-types.ts), called by the event dispatcher for each event of its types. */
export const subscribers: Subscriber[] = [endpointCacheFillSubscriber, webhooksFanOutSubscriber];
