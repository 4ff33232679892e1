import { authenticate } from '../auth/authenticate.ts';
import { assertPermission, rateLimitKey, type Principal } from '../auth/principal.ts';
import { AppError } from '../errors/app-error.ts';
import { noteRequest } from '../logger.ts';
import { consumeRateLimit } from '../rate-limit/rate-limit.service.ts';
import { assertPlan } from '../workspaces/workspace.service.ts';
import type { RequestContext } from './context.ts';
import { publicProcedure, type Meta } from './init.ts';

/**
 * The checks every call passes, in order: a valid credential (401), the
 * credential's per-minute limit (429), `permission` (403
 * missing_permission) and the workspace's `plan` (403 plan_required or the
 * meta's `planError`). Every procedure runs it (apiProcedure below); so does
 * the one HTTP route that answers outside the procedures (the suppression
 * list's CSV download), so both admit exactly the same calls.
 */
export async function admitCall(ctx: RequestContext, meta: Pick<Meta, 'permission' | 'plan' | 'planError'>): Promise<Principal> {
  const principal = await authenticate(ctx.authorization);
  noteRequest({ keyId: principal.id });
  const rate = await consumeRateLimit(rateLimitKey(principal), ctx.rateLimitPerMinute);
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
  if (meta.permission !== 'any') assertPermission(principal, meta.permission);
  if (meta.plan) await assertPlan(principal.workspaceId, meta.plan, meta.planError ?? 'plan_required');
  return principal;
}

/** The procedure every API call is built on: its meta declares what the call needs, and admitCall enforces it. */
export const apiProcedure = publicProcedure.use(async ({ ctx, meta, next, path }) => {
  if (!meta?.permission) throw new Error(`procedure ${path} declares no permission in its meta`);
  const principal = await admitCall(ctx, meta);
  return next({ ctx: { ...ctx, principal } });
});
