/** The webhooks domain's front door: the fan-out of events and the delivery attempts (the worker), and which events an endpoint would receive (their emitters). */
export { giveUpAttempt } from './attempts.ts';
export { attemptDelivery, fanOut, webhookDeliveryRetention } from './deliveries.ts';
export { eventsListenedTo } from './listening.ts';
