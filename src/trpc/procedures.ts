import type { Permission } from '../../schema/account.ts';
import { assertPermission, authenticate } from '../auth/api-key.service.ts';
import { AppError } from '../errors/app-error.ts';
import { consumeRateLimit } from '../rate-limit/rate-limit.service.ts';
import { publicProcedure } from './init.ts';

/**
 * The procedure every API call is built on: a valid key (401 otherwise),
 * counted against the key's per-minute limit (429), holding `permission`
 * (403 missing_permission). `'any'` accepts any valid key.
 */
export const authorizedProcedure = (permission: Permission | 'any') =>
  publicProcedure.use(async ({ ctx, next }) => {
    const principal = await authenticate(ctx.authorization);
    const rate = await consumeRateLimit(principal.keyId, ctx.rateLimitPerMinute);
    Object.assign(ctx.responseHeaders, {
      'RateLimit-Limit': String(rate.limit),
      'RateLimit-Remaining': String(rate.remaining),
      'RateLimit-Reset': String(rate.resetSeconds),
    });
    if (!rate.allowed) {
      ctx.responseHeaders['Retry-After'] = String(rate.resetSeconds);
      throw new AppError('rate_limited', `Rate limit of ${rate.limit} requests per minute exceeded; retry in ${rate.resetSeconds} s`, {
        retryAfter: rate.resetSeconds,
      });
    }
    if (permission !== 'any') assertPermission(principal, permission);
    return next({ ctx: { ...ctx, principal } });
  });
