import { TRPCError } from '@trpc/server';
import { authenticate } from '../auth/authenticate.ts';
import { assertPermission, rateLimitKey, type Principal } from '../auth/principal.ts';
import { noteDatabaseFault } from '../db/store-health.ts';
import { AppError } from '../errors/app-error.ts';
import { databaseFault, databaseFaultError, type CallStage } from '../errors/database-faults.ts';
import { noteRequest } from '../logger.ts';
import { consumeRateLimit, rateLimitWindowSeconds, type RateLimitDecision } from '../rate-limit/rate-limit.service.ts';
import { assertPlan } from '../workspaces/index.ts';
import { onceForKey } from '../idempotency/idempotency.service.ts';
import type { RequestContext } from './context.ts';
import { markErrorStyle } from './error-styles.ts';
import { publicProcedure, type Meta } from './init.ts';

/**
 * The checks every call passes, in order: a valid credential (401), the
 * credential's per-minute limit (429), `permission` (403
 * missing_permission) and the workspace's `plan` (403 plan_required or the
 * meta's `planError`). Every procedure runs it (apiProcedure below); so does
 * each HTTP route that answers outside the procedures (the CSV downloads),
 * so both admit exactly the same calls. A read (`changesData` false) whose
 * use the limiter cannot record for lack of disk space goes on unrecorded and
 * unlimited: a full disk stops writes, not reads.
 */
export async function admitCall(
  ctx: RequestContext,
  meta: Pick<Meta, 'permission' | 'plan' | 'planError'>,
  changesData: boolean,
): Promise<Principal> {
  const principal = await authenticate(ctx.authorization);
  noteRequest({ keyId: principal.id });
  const rate = await consumeRateLimit(rateLimitKey(principal), ctx.rateLimitPerMinute).catch((error: unknown) => {
    if (changesData || databaseFault(error) !== 'storage_full') throw error;
    noteDatabaseFault(error);
    return undefined;
  });
  if (rate) applyRateLimit(ctx, rate);
  if (meta.permission !== 'any') assertPermission(principal, meta.permission);
  if (meta.plan) await assertPlan(principal.workspaceId, meta.plan, meta.planError ?? 'plan_required');
  return principal;
}

/** The limiter's headers on the answer, and 429 once the minute is used up. */
function applyRateLimit(ctx: RequestContext, rate: RateLimitDecision) {
  Object.assign(ctx.responseHeaders, {
    'RateLimit-Limit': String(rate.limit),
    'RateLimit-Remaining': String(rate.remaining),
    'RateLimit-Reset': String(rate.resetSeconds),
    'RateLimit-Policy': `${rate.limit};w=${rateLimitWindowSeconds}`,
  });
  if (rate.allowed) return;
  ctx.responseHeaders['Retry-After'] = String(rate.resetSeconds);
  throw new AppError('rate_limited', `Rate limit of ${rate.limit} requests per minute exceeded; retry in ${rate.resetSeconds} s`, {
    retryAfter: rate.resetSeconds,
  });
}

/**
 * The procedure every API call is built on: its meta declares what the call
 * needs, and admitCall enforces it. A POST (a mutation on tRPC and GraphQL)
 * with an Idempotency-Key runs once per key and credential; a repeat gets
 * the first answer with `Idempotent-Replayed: true`. A database fault the
 * call meets is answered saying what became of its change
 * (src/errors/database-faults.ts): none if it only reads or was refused at
 * admission; if it changes data (a mutation, or a query whose meta says it
 * does) and was under way, it may have been made in part or in full.
 */
export const apiProcedure = publicProcedure.use(async ({ ctx, meta, next, path, type, getRawInput }) => {
  if (!meta?.permission) throw new Error(`procedure ${path} declares no permission in its meta`);
  const changesData = type === 'mutation' || meta.changesData === true;
  let stage: CallStage = changesData ? 'not started' : 'read';
  const admitAndRun = async () => {
    const principal = await admitCall(ctx, meta, changesData);
    if (changesData) stage = 'started';
    const call = () => next({ ctx: { ...ctx, principal } });
    const key = ctx.idempotencyKey;
    if (key === undefined || type !== 'mutation' || (meta.openapi?.method ?? 'POST') !== 'POST') return call();
    let result: Awaited<ReturnType<typeof call>> | undefined;
    const { outcome, replayed } = await onceForKey(
      { principalId: principal.id, key, operation: path, input: await getRawInput() },
      async () => {
        result = await call();
        return result.ok ? { ok: true, output: result.data } : { ok: false, error: result.error };
      },
    );
    if (!replayed) return result!;
    ctx.responseHeaders['Idempotent-Replayed'] = 'true';
    if (!outcome.ok) throw outcome.error;
    // The stored answer stands in for the procedure's (it passed the output check when it was first given), as the
    // result tRPC's next() resolves to: its `marker` is a type brand, which tRPC's public API leaves out.
    return { ok: true as const, data: outcome.output } as unknown as Awaited<ReturnType<typeof call>>;
  };
  // Whatever the call answers with is marked with the procedure's error style, for the surfaces that see only the error.
  const result = await admitAndRun().catch((error: unknown) => {
    throw markErrorStyle(inTermsOfTheCall(error, stage), meta.errorStyle);
  });
  if (!result.ok) markErrorStyle(result.error, meta.errorStyle);
  if (!result.ok && databaseFault(result.error)) throw markErrorStyle(inTermsOfTheCall(result.error, stage), meta.errorStyle);
  return result;
});

/** A database fault as the call's answer (503 or 507, see databaseFaultError); any other error, or one a service phrased itself, as it is. */
function inTermsOfTheCall(error: unknown, stage: CallStage): unknown {
  if ((error instanceof TRPCError ? error.cause : error) instanceof AppError) return error;
  const fault = databaseFault(error);
  return fault ? databaseFaultError(fault, stage, error) : error;
}
