import { v5 as nameBasedId } from 'uuid';
import type { z } from 'zod';
import { deliverWebhookJob } from '../jobs/contracts.ts';
import { enqueue, enqueueAt } from '../jobs/queue.ts';
import type { webhookDelivery } from '../../schema/webhooks.ts';
import { nowMs } from '../clock.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { notFound } from '../errors/app-error.ts';
import { getEvent, type StoredEvent } from '../events/events.service.ts';
import { openSecret } from '../secrets/secret-box.ts';
import { sendWebhook } from './send-webhook.ts';
import {
  attemptId,
  Webhook,
  WebhookAttempt,
  WebhookDelivery,
  type AttemptDoc,
  type DeliveryDoc,
  type WebhookDoc,
} from './webhook.models.ts';

type DeliveryOut = z.infer<typeof webhookDelivery>;

/** The wait before each attempt: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (Standard Webhooks' schedule). */
export const attemptDelaysMs = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** An endpoint whose attempts have all failed for this long is disabled. */
const failingLimitMs = 5 * 86_400_000;
const deliveryNamespace = 'a3c5e1f2-7b9d-4c8e-9f0a-1b2c3d4e5f60';
const deliveryIdOf = (webhookId: string, eventId: string) => nameBasedId(`${webhookId}\n${eventId}`, deliveryNamespace);

const subscribes = (hook: WebhookDoc, event: StoredEvent) =>
  event.type === 'webhook.test'
    ? (event.data as { webhook_id: string }).webhook_id === hook._id
    : hook.events.includes('*') || hook.events.includes(event.type);

/**
 * One delivery per enabled endpoint of the workspace that wants the event,
 * its first attempt made here, at once (later ones are jobs of their own).
 * Safe to run again: a delivery exists once, and an attempt recorded is
 * not made again.
 */
export async function fanOut(event: StoredEvent): Promise<void> {
  const hooks = await Webhook.find({ workspaceId: event.workspaceId }).lean<WebhookDoc[]>();
  await Promise.all(
    hooks
      .filter((h) => h.enabled && subscribes(h, event))
      .map(async (hook) => {
        const _id = deliveryIdOf(hook._id, event.id);
        const created = await WebhookDelivery.create({
          _id,
          workspaceId: event.workspaceId,
          webhookId: hook._id,
          eventId: event.id,
          eventType: event.type,
        }).then(
          () => true,
          (error: unknown) => (isDuplicateKey(error) ? false : Promise.reject(error)),
        );
        // A delivery made just now has no attempt yet; one made by an earlier hand-on may have its first recorded.
        if (created || !(await WebhookAttempt.exists({ _id: attemptId(_id, 0) }))) await attempt(hook, event, _id, 0);
      }),
  );
}

/** The body every attempt sends, the same each time: `{ type, timestamp, data }`. */
const bodyOf = (event: StoredEvent) => JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.data });

/**
 * Attempt `n` of a delivery: sent unless it was recorded already, recorded
 * once, and the next one scheduled. A worker that dies mid-attempt leaves
 * it unrecorded: the job runs again and the receiver gets the same
 * `webhook-id` again (at least once).
 */
export async function attemptDelivery(deliveryId: string, n: number): Promise<void> {
  const delivery = await WebhookDelivery.findById(deliveryId).lean<DeliveryDoc>();
  if (!delivery || (await WebhookAttempt.exists({ _id: attemptId(deliveryId, n) }))) return;
  const [hook, event] = await Promise.all([Webhook.findById(delivery.webhookId).lean<WebhookDoc>(), getEvent(delivery.eventId)]);
  if (hook && event) await attempt(hook, event, deliveryId, n);
}

/** Attempt `n` of the delivery of `event` to `hook`, not recorded yet: sent, recorded once, the next one scheduled. */
async function attempt(hook: WebhookDoc, event: StoredEvent, deliveryId: string, n: number): Promise<void> {
  const now = nowMs();
  const record = (fields: Partial<AttemptDoc> & Pick<AttemptDoc, 'outcome' | 'durationMs'>) =>
    WebhookAttempt.create({ _id: attemptId(deliveryId, n), deliveryId, n, attemptedAt: new Date(nowMs()), ...fields }).then(
      () => true,
      (error: unknown) => (isDuplicateKey(error) ? false : Promise.reject(error)),
    );
  if (!hook.enabled)
    return void (await record({
      outcome: 'failed',
      durationMs: 0,
      error: `the endpoint is disabled (${hook.disabledReason ?? 'manual'})`,
    }));

  const secrets = hook.secrets.filter((s) => !s.expiresAt || s.expiresAt.getTime() > now).map((s) => openSecret(s.sealed));
  const sent = await sendWebhook(hook.url, { id: event.id, secrets }, bodyOf(event));
  const base = { statusCode: sent.statusCode, durationMs: sent.durationMs, error: sent.error };
  if (sent.error === null) {
    await record({ ...base, outcome: 'delivered' });
    if (hook.failingSince) await Webhook.updateOne({ _id: hook._id }, { $set: { failingSince: null } });
    return;
  }
  const failingSince = hook.failingSince?.getTime() ?? now;
  const disable = sent.statusCode === 410 ? 'gone' : nowMs() - failingSince >= failingLimitMs ? 'failing' : null;
  if (disable) await Webhook.updateOne({ _id: hook._id }, { $set: { enabled: false, disabledReason: disable } });
  else if (!hook.failingSince) await Webhook.updateOne({ _id: hook._id }, { $set: { failingSince: new Date(now) } });
  const delay = n + 1 < attemptDelaysMs.length && !disable ? Math.max(attemptDelaysMs[n + 1]!, sent.retryAfterMs ?? 0) : null;
  const nextAttemptAt = delay === null ? null : new Date(nowMs() + delay);
  if ((await record({ ...base, outcome: nextAttemptAt ? 'retry' : 'failed', nextAttemptAt })) && nextAttemptAt) {
    await enqueueAt(deliverWebhookJob, new Date(Date.now() + delay!), { deliveryId, attempt: n + 1 });
  }
}

/** A worker kept dying on the attempt: it is recorded as failed, and the schedule goes on. */
export async function giveUpAttempt(deliveryId: string, n: number, reason: string): Promise<void> {
  const delay = n + 1 < attemptDelaysMs.length ? attemptDelaysMs[n + 1]! : null;
  const nextAttemptAt = delay === null ? null : new Date(nowMs() + delay);
  const recorded = await WebhookAttempt.create({
    _id: attemptId(deliveryId, n),
    deliveryId,
    n,
    durationMs: 0,
    error: reason,
    outcome: nextAttemptAt ? 'retry' : 'failed',
    nextAttemptAt,
    attemptedAt: new Date(nowMs()),
  }).then(
    () => true,
    (error: unknown) => (isDuplicateKey(error) ? false : Promise.reject(error)),
  );
  if (recorded && nextAttemptAt) await enqueueAt(deliverWebhookJob, new Date(Date.now() + delay!), { deliveryId, attempt: n + 1 });
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
  await enqueue(deliverWebhookJob, { deliveryId, attempt: next });
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
