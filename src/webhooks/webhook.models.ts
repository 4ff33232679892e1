import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/** A workspace's receiving endpoint. Its secrets are sealed (src/secrets); during a rotation the old one signs too until it expires. */
const webhookSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    /** The campaigns it is limited to (an event naming another is not delivered to it); absent for all. */
    campaignIds: { type: [String], default: undefined },
    enabled: { type: Boolean, default: true },
    description: { type: String, default: '' },
    disabledReason: { type: String, default: null },
    secrets: { type: [{ _id: false, sealed: { type: String, required: true }, expiresAt: { type: Date, default: null } }], default: [] },
    /** When the endpoint's current run of failed attempts began (null after a success): 5 days of it disables the endpoint. */
    failingSince: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);
webhookSchema.index({ workspaceId: 1, createdAt: -1 });
export type WebhookDoc = InferRawDocTypeFromSchema<typeof webhookSchema>;
export const Webhook = mongoose.model('Webhook', webhookSchema, 'webhooks');

/**
 * One event for one endpoint, inserted once (`_id` derived from both, so an event handed on twice makes one
 * delivery), with the attempt claimed last and who claimed it: an attempt is POSTed only by its claimant (the
 * outbox for the first, then the job of each attempt, by its id), so two jobs for one attempt POST once.
 */
const deliverySchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    webhookId: { type: String, required: true },
    eventId: { type: String, required: true },
    eventType: { type: String, required: true },
    claimedAttempt: { type: Number, default: null },
    claimedBy: { type: String, default: null },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
deliverySchema.index({ webhookId: 1, createdAt: -1 });
export type DeliveryDoc = InferRawDocTypeFromSchema<typeof deliverySchema>;
export const WebhookDelivery = mongoose.model('WebhookDelivery', deliverySchema, 'webhook_deliveries');

/**
 * Attempt n of a delivery, inserted once (`<delivery>:<n>`) and never
 * changed: the delivery's history, and its state (the last attempt's
 * outcome), without updates of a collection that grows.
 */
const attemptSchema = new Schema(
  {
    _id: { type: String, required: true },
    deliveryId: { type: String, required: true, index: true },
    n: { type: Number, required: true },
    statusCode: { type: Number, default: null },
    durationMs: { type: Number, required: true },
    error: { type: String, default: null },
    outcome: { type: String, enum: ['delivered', 'retry', 'failed'], required: true },
    nextAttemptAt: { type: Date, default: null },
    attemptedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
export type AttemptDoc = InferRawDocTypeFromSchema<typeof attemptSchema>;
export const WebhookAttempt = mongoose.model('WebhookAttempt', attemptSchema, 'webhook_attempts');
export const attemptId = (deliveryId: string, n: number) => `${deliveryId}:${n}`;
