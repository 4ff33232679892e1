import { nowMs } from '../clock.ts';
import { settings } from '../config.ts';
import { insertNew } from '../db/insert-new.ts';
import { journaled } from '../db/journaled.ts';
import type { StoredEvent } from '../events/events.service.ts';
import { createHostSlots } from '../net/host-slots.ts';
import { openSecret } from '../secrets/secret-box.ts';
import { queueNextAfter, takeAttempt } from './schedule.ts';
import { sendWebhook } from './send-webhook.ts';
import { attemptId, Webhook, WebhookAttempt, type AttemptDoc, type WebhookDoc } from './webhook.models.ts';

/** The wait before each attempt: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (Standard Webhooks' schedule). */
const attemptDelaysMs = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** An endpoint whose attempts have all failed for this long is disabled. */
const failingLimitMs = 5 * 86_400_000;

/** POSTs under way to one host at once, per worker: a slow receiver holds back its own deliveries only. */
const hostSlots = createHostSlots(() => settings().WORKER_CONCURRENCY);

/** Attempt `n` of the delivery of `event` to `hook`, not recorded yet. */
export interface PlannedAttempt {
  hook: WebhookDoc;
  event: StoredEvent;
  deliveryId: string;
  n: number;
}

/** An endpoint as its attempts in this call leave it (written once at the end, when it changed), and its secrets in use. */
type EndpointState = Pick<WebhookDoc, 'enabled' | 'disabledReason' | 'failingSince'> & { secrets: string[] };

/** The secrets that sign now, opened (two during a rotation, until the old one expires). */
const secretsInUse = (hook: WebhookDoc) =>
  hook.secrets.filter((s) => !s.expiresAt || s.expiresAt.getTime() > nowMs()).map((s) => openSecret(s.sealed));

/** The body every attempt sends, the same each time: `{ type, timestamp, data }`. */
const bodyOf = (event: StoredEvent) => JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.data });

/** The wait before attempt n + 1 (at least what the receiver asked for), or null after the last attempt. */
const retryDelay = (n: number, waitAtLeastMs = 0) =>
  n + 1 < attemptDelaysMs.length ? Math.max(attemptDelaysMs[n + 1]!, waitAtLeastMs) : null;

/**
 * Makes the attempts, claimed by the caller (schedule.ts), all at once (a few
 * POSTs to each host at a time), then records them with one insert and
 * queues the next attempt of each that failed. An attempt recorded meanwhile
 * is not recorded again and queues nothing here; a worker that dies before
 * recording leaves its attempts unrecorded, to be made again with the same
 * `webhook-id` (at least once), and one that dies before queuing leaves that
 * to the job or event run again (takeAttempt). The records are journaled: one
 * that a power loss undid would have its POST made again. An endpoint that answers 410,
 * or whose attempts have all failed for 5 days, is disabled.
 */
export async function makeAttempts(planned: PlannedAttempt[]): Promise<void> {
  // Each endpoint once, its secrets opened once, however many of its deliveries are in the batch.
  const hooks = new Map(planned.map(({ hook }) => [hook._id, hook]));
  const endpoints = new Map([...hooks].map(([id, hook]) => [id, { ...hook, secrets: secretsInUse(hook) }]));
  const made = await Promise.all(planned.map((attempt) => make(attempt, endpoints.get(attempt.hook._id)!)));
  const recorded = await insertNew(WebhookAttempt, made, journaled);
  // Only what the attempts changed is written: a change made meanwhile (disabled by hand) stays.
  for (const hook of hooks.values()) {
    const state = endpoints.get(hook._id)!;
    const changed = {
      ...(state.enabled !== hook.enabled && { enabled: state.enabled, disabledReason: state.disabledReason }),
      ...(state.failingSince?.getTime() !== hook.failingSince?.getTime() && { failingSince: state.failingSince }),
    };
    if (Object.keys(changed).length) await Webhook.updateOne({ _id: hook._id }, { $set: changed });
  }
  for (const record of made) if (recorded.has(record._id)) await queueNextAfter(record);
}

/** Makes one attempt (none when its endpoint is disabled by now) and answers its record; `endpoint` follows the outcome. */
async function make({ hook, event, deliveryId, n }: PlannedAttempt, endpoint: EndpointState): Promise<AttemptDoc & { _id: string }> {
  const base = { _id: attemptId(deliveryId, n), deliveryId, n };
  const release = await hostSlots(new URL(hook.url).host);
  try {
    if (!endpoint.enabled) {
      const error = `the endpoint is disabled (${endpoint.disabledReason ?? 'manual'})`;
      const attemptedAt = new Date(nowMs());
      return { ...base, outcome: 'failed', durationMs: 0, statusCode: null, error, nextAttemptAt: null, attemptedAt };
    }
    const now = nowMs();
    const sent = await sendWebhook(hook.url, { id: event.id, secrets: endpoint.secrets }, bodyOf(event));
    const record = { ...base, statusCode: sent.statusCode, durationMs: sent.durationMs, error: sent.error, attemptedAt: new Date(nowMs()) };
    if (sent.error === null) {
      endpoint.failingSince = null;
      return { ...record, outcome: 'delivered', nextAttemptAt: null };
    }
    const failingSince = endpoint.failingSince?.getTime() ?? now;
    const disable = sent.statusCode === 410 ? 'gone' : nowMs() - failingSince >= failingLimitMs ? 'failing' : null;
    if (disable) Object.assign(endpoint, { enabled: false, disabledReason: disable });
    else endpoint.failingSince ??= new Date(now);
    const retryInMs = disable ? null : retryDelay(n, sent.retryAfterMs ?? 0);
    const nextAttemptAt = retryInMs === null ? null : new Date(nowMs() + retryInMs);
    return { ...record, outcome: nextAttemptAt ? 'retry' : 'failed', nextAttemptAt };
  } finally {
    release();
  }
}

/** The job of attempt n kept failing or its workers dying: the attempt is recorded as failed, and the schedule goes on. */
export async function giveUpAttempt(deliveryId: string, n: number, reason: string, claimant: string): Promise<void> {
  if (!(await takeAttempt(deliveryId, n, claimant))) return;
  const retryInMs = retryDelay(n);
  const nextAttemptAt = retryInMs === null ? null : new Date(nowMs() + retryInMs);
  const record: AttemptDoc & { _id: string } = {
    _id: attemptId(deliveryId, n),
    deliveryId,
    n,
    durationMs: 0,
    statusCode: null,
    error: reason,
    outcome: nextAttemptAt ? 'retry' : 'failed',
    nextAttemptAt,
    attemptedAt: new Date(nowMs()),
  };
  if ((await insertNew(WebhookAttempt, [record], journaled)).size) await queueNextAfter(record);
}
