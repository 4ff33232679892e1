import { v5 as nameBasedId } from 'uuid';
import type { z } from 'zod';
import { enqueue } from '../jobs/queue.ts';
import type { webhookDelivery } from '../../schema/webhooks.ts';
import { nowMs } from '../clock.ts';
import { insertNew } from '../db/insert-new.ts';
import { defineRetentionRule } from '../db/retention.ts';
import { notFound } from '../errors/app-error.ts';
import { getEvent, type StoredEvent } from '../events/events.service.ts';
import { makeAttempts, type PlannedAttempt } from './attempts.ts';
import { enabledEndpointsOf, endpointsHearing } from './listening.ts';
import { webhooksDeliverJob } from './jobs/webhooks-deliver.job.ts';
import { outboxClaimant, takeAttempt } from './schedule.ts';
import { Webhook, WebhookAttempt, WebhookDelivery, type AttemptDoc, type DeliveryDoc, type WebhookDoc } from './webhook.models.ts';

type DeliveryOut = z.infer<typeof webhookDelivery>;

const deliveryNamespace = 'a3c5e1f2-7b9d-4c8e-9f0a-1b2c3d4e5f60';
const deliveryIdOf = (webhookId: string, eventId: string) => nameBasedId(`${webhookId}\n${eventId}`, deliveryNamespace);

/**
 * One delivery per enabled endpoint of the event's workspace that wants it
 * (its types, and its campaigns when it is limited to some),
 * for many events at once (one read of their endpoints, one insert of their
 * deliveries, each inserted with its first attempt claimed by the outbox),
 * and each delivery's first attempt made here, at once (later ones are jobs
 * of their own). Safe to run again: a delivery exists once, and an attempt
 * recorded is not made again, but its next one queued if that was lost.
 */
export async function fanOut(events: StoredEvent[]): Promise<void> {
  const hooks = await enabledEndpointsOf(events);
  const planned: PlannedAttempt[] = events.flatMap((event) =>
    endpointsHearing(hooks, event).map((hook) => ({ hook, event, deliveryId: deliveryIdOf(hook._id, event.id), n: 0 })),
  );
  const created = await insertNew(
    WebhookDelivery,
    planned.map(({ hook, event, deliveryId }) => ({
      _id: deliveryId,
      workspaceId: event.workspaceId,
      webhookId: hook._id,
      eventId: event.id,
      eventType: event.type,
      claimedAttempt: 0,
      claimedBy: outboxClaimant,
      createdAt: new Date(),
    })),
  );
  // A delivery made just now has no attempt yet; one made by an earlier hand-on may have its first recorded (or claimed
  // by a job: a retry asked meanwhile).
  const again = await Promise.all(
    planned.map(async (attempt) => created.has(attempt.deliveryId) || (await takeAttempt(attempt.deliveryId, 0, outboxClaimant)) !== null),
  );
  await makeAttempts(planned.filter((_, i) => again[i]));
}

/**
 * Attempt `n` of a delivery, by the job `claimant`, unless it was recorded
 * already or another job has it (takeAttempt). A worker that dies
 * mid-attempt leaves it unrecorded: the job runs again and the receiver gets
 * the same `webhook-id` again (at least once).
 */
export async function attemptDelivery(deliveryId: string, n: number, claimant: string): Promise<void> {
  const delivery = await takeAttempt(deliveryId, n, claimant);
  if (!delivery) return;
  const [hook, event] = await Promise.all([Webhook.findById(delivery.webhookId).lean<WebhookDoc>(), getEvent(delivery.eventId)]);
  if (hook && event) await makeAttempts([{ hook, event, deliveryId, n }]);
}

function toDelivery(doc: DeliveryDoc, attempts: AttemptDoc[]): DeliveryOut {
  const sorted = attempts.sort((a, b) => a.n - b.n);
  const last = sorted.at(-1);
  const status = !last ? 'pending' : last.outcome === 'retry' ? 'pending' : last.outcome;
  return {
    id: doc._id,
    event_id: doc.eventId,
    event_type: doc.eventType,
    status,
    attempts: sorted.map((a) => ({
      status_code: a.statusCode ?? null,
      duration_ms: a.durationMs,
      error: a.error ?? null,
      attempted_at: a.attemptedAt.toISOString(),
    })),
    next_attempt_at: !last ? doc.createdAt.toISOString() : (last.nextAttemptAt?.toISOString() ?? null),
    created_at: doc.createdAt.toISOString(),
  };
}

const attemptsOf = (ids: string[]) => WebhookAttempt.find({ deliveryId: { $in: ids } }).lean<AttemptDoc[]>();

export async function deliveriesOf(webhookId: string, limit: number): Promise<DeliveryOut[]> {
  const docs = await WebhookDelivery.find({ webhookId }).sort({ createdAt: -1, _id: -1 }).limit(limit).lean<DeliveryDoc[]>();
  const attempts = await attemptsOf(docs.map((d) => d._id));
  return docs.map((doc) =>
    toDelivery(
      doc,
      attempts.filter((a) => a.deliveryId === doc._id),
    ),
  );
}

/** The delivery of an event to an endpoint, as it stands (pending with no attempt while it is being created). */
export async function deliveryOf(webhookId: string, eventId: string): Promise<DeliveryOut> {
  const _id = deliveryIdOf(webhookId, eventId);
  const doc = await WebhookDelivery.findById(_id).lean<DeliveryDoc>();
  if (doc) return toDelivery(doc, await attemptsOf([_id]));
  return {
    id: _id,
    event_id: eventId,
    event_type: 'webhook.test',
    status: 'pending',
    attempts: [],
    next_attempt_at: new Date(nowMs()).toISOString(),
    created_at: new Date(nowMs()).toISOString(),
  };
}

/** Sends a delivery again now, as its next attempt (same `webhook-id`). */
export async function sendAgain(webhookId: string, deliveryId: string): Promise<DeliveryOut> {
  const doc = await WebhookDelivery.findById(deliveryId).lean<DeliveryDoc>();
  if (!doc || doc.webhookId !== webhookId) throw notFound('Delivery', 'deliveryId');
  const attempts = await attemptsOf([deliveryId]);
  const next = attempts.reduce((max, a) => Math.max(max, a.n + 1), 0);
  await enqueue(webhooksDeliverJob, { deliveryId, attempt: next });
  return toDelivery(doc, attempts);
}

/** How long delivery history is kept. */
const historyMs = 30 * 86_400_000;

/** Deliveries older than 30 days go, with their attempts. */
export async function pruneDeliveries(): Promise<number> {
  const old = await WebhookDelivery.find({ createdAt: { $lt: new Date(nowMs() - historyMs) } }, { _id: 1 }).lean<Array<{ _id: string }>>();
  const ids = old.map((d) => d._id);
  if (ids.length === 0) return 0;
  await WebhookAttempt.deleteMany({ deliveryId: { $in: ids } });
  await WebhookDelivery.deleteMany({ _id: { $in: ids } });
  return ids.length;
}

export const webhookDeliveryRetention = defineRetentionRule({
  records: 'webhook deliveries',
  everyMs: 60 * 60_000,
  prune: pruneDeliveries,
});
