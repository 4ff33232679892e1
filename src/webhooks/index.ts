/** The webhooks domain's front door: the fan-out of events and the delivery attempts (the worker). */
export { giveUpAttempt } from './attempts.ts';
export { attemptDelivery, fanOut, webhookDeliveryRetention } from './deliveries.ts';
