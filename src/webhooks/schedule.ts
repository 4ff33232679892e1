import { nowMs } from '../clock.ts';
import { webhooksDeliverJob } from './jobs/webhooks-deliver.job.ts';
import { enqueueOnceAt } from '../jobs/queue.ts';
import { attemptId, WebhookAttempt, WebhookDelivery, type AttemptDoc, type DeliveryDoc } from './webhook.models.ts';

/** Who makes a delivery's first attempt: the event outbox's fan-out, whichever worker hands the event on. */
export const outboxClaimant = 'outbox';

/**
 * Queues attempt `n` of a delivery for `at` (the service's clock; the queue runs on real time), unless its job is
 * queued already: recording an attempt and queuing the next are two writes, and whoever finds the first done
 * without the second (the same job or event run again after a crash) queues it.
 */
export const queueAttempt = (deliveryId: string, n: number, at: Date) =>
  enqueueOnceAt(webhooksDeliverJob, new Date(Date.now() + Math.max(0, at.getTime() - nowMs())), { deliveryId, attempt: n }, [
    'deliveryId',
    'attempt',
  ]);

/** The schedule goes on from a recorded attempt: a failed one with another to come has it queued. */
export async function queueNextAfter(attempt: Pick<AttemptDoc, 'deliveryId' | 'n' | 'outcome' | 'nextAttemptAt'>): Promise<void> {
  if (attempt.outcome === 'retry' && attempt.nextAttemptAt) await queueAttempt(attempt.deliveryId, attempt.n + 1, attempt.nextAttemptAt);
}

/**
 * The delivery, when attempt `n` is `claimant`'s to make now; else null. Not when the attempt is recorded: the
 * schedule is carried on from it instead (its next attempt queued, unless a later one was claimed since), for this
 * may be a run again after a crash between the record and the queuing. Nor when another claimant holds it: that job
 * is still queued, and makes the attempt or gives it up. A claimant that died mid-attempt (its job, or the event,
 * run again) takes it up again: at least once, with the same `webhook-id`.
 */
export async function takeAttempt(deliveryId: string, n: number, claimant: string): Promise<DeliveryDoc | null> {
  const [delivery, recorded] = await Promise.all([
    WebhookDelivery.findById(deliveryId).lean<DeliveryDoc>(),
    WebhookAttempt.findById(attemptId(deliveryId, n)).lean<AttemptDoc>(),
  ]);
  if (!delivery) return null;
  if (recorded) {
    if ((delivery.claimedAttempt ?? -1) <= n) await queueNextAfter(recorded);
    return null;
  }
  const free = [{ claimedAttempt: null }, { claimedAttempt: { $lt: n } }, { claimedAttempt: n, claimedBy: claimant }];
  const claimed = await WebhookDelivery.updateOne({ _id: deliveryId, $or: free }, { $set: { claimedAttempt: n, claimedBy: claimant } });
  return claimed.matchedCount ? delivery : null;
}
