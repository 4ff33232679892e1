import { agentRunHandler } from './agent-run.ts';
import { analyzeRepliesHandler } from './analyze-replies.ts';
import { deliverWebhookHandler } from './deliver-webhook.ts';
import { expireEndpointCacheHandler } from './expire-endpoint-cache.ts';
import type { JobHandler } from './job-handler.ts';
import { outreachTickHandler } from './outreach-tick.ts';
import { pruneIdempotencyAndWebhooksHandler } from './prune-idempotency-and-webhooks.ts';
import { pruneOAuthHandler } from './prune-oauth.ts';
import { pruneOutreachHandler } from './prune-outreach.ts';
import { pruneRateLimitsHandler } from './prune-rate-limits.ts';
import { pruneValidationHandler } from './prune-validation.ts';
import { readMailboxesHandler } from './read-mailboxes.ts';
import { requeueStrandedWorkHandler } from './requeue-stranded-work.ts';
import { scrapeRunHandler } from './scrape-run.ts';
import { validateEmailsHandler } from './validate-emails.ts';

/** Every background job the worker runs: each contract (src/jobs/contracts.ts) with its handler. */
export const jobRegistry: JobHandler[] = [
  pruneRateLimitsHandler,
  scrapeRunHandler,
  expireEndpointCacheHandler,
  outreachTickHandler,
  pruneOutreachHandler,
  readMailboxesHandler,
  analyzeRepliesHandler,
  validateEmailsHandler,
  agentRunHandler,
  deliverWebhookHandler,
  pruneIdempotencyAndWebhooksHandler,
  pruneValidationHandler,
  pruneOAuthHandler,
  requeueStrandedWorkHandler,
];
