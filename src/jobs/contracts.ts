import { z } from 'zod';
import { settings } from '../config.ts';
import { defineJobContract } from './job-contract.ts';

/** Every background job's contract; the handlers are in jobs/, paired with these by jobs/registry.ts. */

/** Runs an agent run to its end (or its next pause). */
export const agentRunJob = defineJobContract({
  name: 'agent.run',
  payload: z.object({ runId: z.uuid() }),
  retries: 2,
  lockLifetimeMs: () => settings().AGENT_LOCK_LIFETIME_MS,
});

/** Crawls one scrape run. */
export const scrapeRunJob = defineJobContract({
  name: 'scrape.run',
  payload: z.object({ runId: z.uuid(), workspaceId: z.string().min(1) }),
  retries: 2,
  lockLifetimeMs: () => settings().SCRAPE_LOCK_LIFETIME_MS,
});

/** Validates a job's addresses, from where it stands; `at` is when a job waiting on greylisting is due again. */
export const validateEmailsJob = defineJobContract({
  name: 'validation.run',
  payload: z.object({ jobId: z.uuid(), at: z.iso.datetime().optional() }),
  retries: 2,
  lockLifetimeMs: () => settings().VALIDATION_LOCK_LIFETIME_MS,
});

/** One attempt of a webhook delivery; the next is queued for its time by this one. */
export const deliverWebhookJob = defineJobContract({
  name: 'webhooks.deliver',
  payload: z.object({ deliveryId: z.uuid(), attempt: z.int().min(0) }),
  retries: 2,
  lockLifetimeMs: () => settings().WEBHOOK_LOCK_LIFETIME_MS,
});

const noPayload = z.object({});

/** One pass of the sending engine over every campaign with something due. */
export const outreachTickJob = defineJobContract({
  name: 'outreach.tick',
  payload: noPayload,
  retries: 0,
  every: () => settings().OUTREACH_TICK_MS,
  lockLifetimeMs: () => 10 * 60_000,
});

/** Reads every inbox's new mail (replies, bounces). */
export const readMailboxesJob = defineJobContract({
  name: 'outreach.read-mailboxes',
  payload: noPayload,
  retries: 0,
  every: () => settings().MAILBOX_POLL_MS,
  lockLifetimeMs: () => 10 * 60_000,
});

/** Classifies the sentiment of replies read since the last pass. */
export const analyzeRepliesJob = defineJobContract({
  name: 'outreach.analyze-replies',
  payload: noPayload,
  retries: 0,
  every: () => settings().MAILBOX_POLL_MS,
  lockLifetimeMs: () => 30 * 60_000,
});

/** Removes endpoint results cached past their lifetime. */
export const expireEndpointCacheJob = defineJobContract({
  name: 'endpoint-cache.expire',
  payload: noPayload,
  retries: 0,
  every: '5 minutes',
});

/** Queues again the work a process recorded and died before queuing (agent runs, scrape runs, validation jobs). */
export const requeueStrandedWorkJob = defineJobContract({
  name: 'stranded-work.requeue',
  payload: noPayload,
  retries: 0,
  every: '10 minutes',
});

/** Removes rate-limit windows no longer in use. */
export const pruneRateLimitsJob = defineJobContract({ name: 'rate-limits.prune', payload: noPayload, retries: 0, every: '10 minutes' });

/** Removes send counts, daily stats and soft-bounce records past their use. */
export const pruneOutreachJob = defineJobContract({ name: 'outreach.prune', payload: noPayload, retries: 0, every: '1 hour' });

/** Removes idempotency records and webhook deliveries past their retention. */
export const pruneIdempotencyAndWebhooksJob = defineJobContract({
  name: 'idempotency-and-webhooks.prune',
  payload: noPayload,
  retries: 0,
  every: '1 hour',
});

/** Removes validation work and notes of finished jobs past their retention. */
export const pruneValidationJob = defineJobContract({ name: 'validation.prune', payload: noPayload, retries: 0, every: '1 hour' });

/** Removes expired OAuth records and old sign-in failures. */
export const pruneOAuthJob = defineJobContract({ name: 'oauth.prune', payload: noPayload, retries: 0, every: '1 hour' });
