import { handleJob } from '../../jobs/job-handler.ts';
import { giveUpAttempt } from '../attempts.ts';
import { attemptDelivery } from '../deliveries.ts';
import { webhooksDeliverJob } from './webhooks-deliver.job.ts';

/**
 * One attempt of a webhook delivery, claimed by this job (its id) before its
 * POST; the next is queued for its time by this one. Receivers' failures are
 * recorded, not thrown: a start counted here is a worker that died
 * mid-attempt, retried with the same webhook-id.
 */
export const webhooksDeliverHandler = handleJob(webhooksDeliverJob, {
  handle: ({ deliveryId, attempt }, job) => attemptDelivery(deliveryId, attempt, job.id),
  giveUp: ({ deliveryId, attempt }, reason, job) => giveUpAttempt(deliveryId, attempt, reason.message, job.id),
});
