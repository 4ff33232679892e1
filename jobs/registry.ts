import { agentRunJob } from './agent-run.ts';
import { analyzeRepliesJob } from './analyze-replies.ts';
import { deliverWebhookJob } from './deliver-webhook.ts';
import { expireEndpointCacheJob } from './expire-endpoint-cache.ts';
import type { JobDefinition } from './job-definition.ts';
import { outreachTickJob } from './outreach-tick.ts';
import { pruneOAuthJob } from './prune-oauth.ts';
import { pruneOutreachJob } from './prune-outreach.ts';
import { pruneRateLimitsJob } from './prune-rate-limits.ts';
import { pruneIdempotencyAndWebhooksJob } from './prune-idempotency-and-webhooks.ts';
import { pruneValidationJob } from './prune-validation.ts';
import { readMailboxesJob } from './read-mailboxes.ts';
import { scrapeRunJob } from './scrape-run.ts';
import { validateEmailsJob } from './validate-emails.ts';

/** Every background job the worker runs. */
export const jobRegistry: JobDefinition[] = [
  pruneRateLimitsJob,
  scrapeRunJob,
  expireEndpointCacheJob,
  outreachTickJob,
  pruneOutreachJob,
  readMailboxesJob,
  analyzeRepliesJob,
  validateEmailsJob,
  agentRunJob,
  deliverWebhookJob,
  pruneIdempotencyAndWebhooksJob,
  pruneValidationJob,
  pruneOAuthJob,
];
