import { agentRunHandler } from '../agents/jobs/agent-run.handler.ts';
import { retentionPruneHandler } from '../housekeeping/jobs/retention-prune.handler.ts';
import { strandedWorkRequeueHandler } from '../housekeeping/jobs/stranded-work-requeue.handler.ts';
import type { JobHandler } from '../jobs/job-handler.ts';
import { leadsImportHandler } from '../leads/jobs/leads-import.handler.ts';
import { outreachAnalyzeRepliesHandler } from '../outreach/jobs/outreach-analyze-replies.handler.ts';
import { outreachReadMailboxesHandler } from '../outreach/jobs/outreach-read-mailboxes.handler.ts';
import { outreachTickHandler } from '../outreach/jobs/outreach-tick.handler.ts';
import { schedulesFireHandler } from '../schedules/jobs/schedules-fire.handler.ts';
import { scrapeRunHandler } from '../scraping/jobs/scrape-run.handler.ts';
import { validationRunHandler } from '../validation/jobs/validation-run.handler.ts';
import { webhooksDeliverHandler } from '../webhooks/jobs/webhooks-deliver.handler.ts';

/** Every background job the worker runs: each domain's handlers (src/<domain>/jobs/<name>.handler.ts). */
export const jobRegistry: JobHandler[] = [
  scrapeRunHandler,
  schedulesFireHandler,
  outreachTickHandler,
  outreachReadMailboxesHandler,
  outreachAnalyzeRepliesHandler,
  validationRunHandler,
  agentRunHandler,
  leadsImportHandler,
  webhooksDeliverHandler,
  strandedWorkRequeueHandler,
  retentionPruneHandler,
];

/**
 * Recurring jobs no handler runs any more, which Agenda would keep in its collection (and count as due): removed
 * when a worker starts. Their work is done by `retention.prune`.
 */
export const retiredRecurringJobs = [
  'rate-limits.prune',
  'outreach.prune',
  'idempotency-and-webhooks.prune',
  'validation.prune',
  'oauth.prune',
  'endpoint-cache.expire',
];
