import type { RetentionRule } from '../db/retention.ts';
import { endpointCacheRetention } from '../endpoints/index.ts';
import { csvImportFileRetention } from '../leads/index.ts';
import { idempotencyRetention } from '../idempotency/idempotency.service.ts';
import { oauthRetention } from '../oauth/index.ts';
import { outreachStatsRetention, sendCountRetention, softBounceRetention } from '../outreach/index.ts';
import { rateLimitRetention } from '../rate-limit/rate-limit.service.ts';
import { signInFailureRetention } from '../sign-in/index.ts';
import { validationRetention } from '../validation/index.ts';
import { webhookDeliveryRetention } from '../webhooks/index.ts';

/** Every domain's records kept for a time (src/db/retention.ts), run by the `retention.prune` job. */
export const retentionRules: readonly RetentionRule[] = [
  rateLimitRetention,
  idempotencyRetention,
  endpointCacheRetention,
  webhookDeliveryRetention,
  validationRetention,
  oauthRetention,
  signInFailureRetention,
  sendCountRetention,
  outreachStatsRetention,
  softBounceRetention,
  csvImportFileRetention,
];
