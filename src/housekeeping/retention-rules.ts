import type { RetentionRule } from '../db/retention.ts';
import { endpointCacheRetention } from '../endpoints/endpoint-cache.ts';
import { idempotencyRetention } from '../idempotency/idempotency.service.ts';
import { oauthRetention } from '../oauth/oauth-adapter.ts';
import { softBounceRetention } from '../outreach/replies/soft-bounces.ts';
import { sendCountRetention } from '../outreach/sending/send-slots.ts';
import { outreachStatsRetention } from '../outreach/stats/outreach-stats.service.ts';
import { rateLimitRetention } from '../rate-limit/rate-limit.service.ts';
import { signInFailureRetention } from '../sign-in/sign-in.service.ts';
import { validationRetention } from '../validation/validation.service.ts';
import { webhookDeliveryRetention } from '../webhooks/deliveries.ts';

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
];
