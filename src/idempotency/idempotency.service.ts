import { createHash } from 'node:crypto';
import { nowMs } from '../clock.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { journaled } from '../db/journaled.ts';
import { defineRetentionRule } from '../db/retention.ts';
import { AppError } from '../errors/app-error.ts';
import { type ErrorCode } from '../../schema/error-codes.ts';
import { IdempotencyRecord, type IdempotencyRecordDoc } from './idempotency-record.model.ts';

/** How long a key is remembered. */
export const keyLifetimeMs = 24 * 3_600_000;
/** A first request still "in progress" after this long died with its process: the key is free again. */
const abandonedAfterMs = 5 * 60_000;
export const maxKeyLength = 255;

export type Outcome = { ok: true; output: unknown } | { ok: false; error: unknown };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** JSON with object keys sorted, so the same input in another key order is the same request. */
const canonical = (value: unknown): string =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? `{${Object.keys(value)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
        .join(',')}}`
    : Array.isArray(value)
      ? `[${value.map(canonical).join(',')}]`
      : (JSON.stringify(value) ?? 'null');

/**
 * Runs a call at most once per (credential, Idempotency-Key) for 24 hours.
 * A repeat with the same operation and input gets the first answer again
 * (`replayed`); with anything else, 422 idempotency_key_reused; while the
 * first still runs, 409 idempotency_in_progress. A first answer that is a
 * server error is forgotten, so the client may retry.
 */
export async function onceForKey(
  scope: { principalId: string; key: string; operation: string; input: unknown },
  run: () => Promise<Outcome>,
): Promise<{ outcome: Outcome; replayed: boolean }> {
  if (scope.key.length === 0 || scope.key.length > maxKeyLength) {
    throw new AppError('validation_failed', `Idempotency-Key: 1 to ${maxKeyLength} characters`, { field: 'Idempotency-Key' });
  }
  const _id = sha256(`${scope.principalId}\n${scope.key}`);
  const requestHash = sha256(`${scope.operation}\n${canonical(scope.input)}`);
  const known = await claim(_id, requestHash);
  if (known) {
    if (known.requestHash !== requestHash)
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with another request: use a new key for a new request');
    if (known.state === 'in_progress')
      throw new AppError('idempotency_in_progress', 'The first request with this Idempotency-Key is still running: retry shortly');
    return {
      outcome: known.errorJson
        ? { ok: false, error: revived(JSON.parse(known.errorJson)) }
        : { ok: true, output: JSON.parse(known.outputJson ?? 'null') },
      replayed: true,
    };
  }
  const outcome = await run().catch((error: unknown): Outcome => ({ ok: false, error }));
  const error = outcome.ok ? null : appErrorIn(outcome.error);
  if (!outcome.ok && (!error || error.status >= 500)) await IdempotencyRecord.deleteOne({ _id });
  else {
    const answer = outcome.ok
      ? { outputJson: JSON.stringify(outcome.output ?? null) }
      : { errorJson: JSON.stringify({ code: error!.code, message: error!.message, extra: error!.extra }) };
    // Journaled: the call's effects may have gone out (a message sent), and an answer a power loss undid would
    // let a retry with the key run them again; its sync also makes the call's own writes durable.
    await IdempotencyRecord.updateOne({ _id }, { $set: { state: 'done', ...answer } }, { writeConcern: journaled });
  }
  return { outcome, replayed: false };
}

/** Inserts the key's record (null: this request runs), or answers the record already there. */
async function claim(_id: string, requestHash: string): Promise<IdempotencyRecordDoc | null> {
  for (;;) {
    try {
      await IdempotencyRecord.create({ _id, requestHash, createdAt: new Date(nowMs()) });
      return null;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const known = await IdempotencyRecord.findById(_id).lean<IdempotencyRecordDoc>();
    if (!known) continue;
    const age = nowMs() - known.createdAt.getTime();
    if (age < keyLifetimeMs && !(known.state === 'in_progress' && age > abandonedAfterMs)) return known;
    await IdempotencyRecord.deleteOne({ _id, createdAt: known.createdAt });
  }
}

const appErrorIn = (error: unknown): AppError | null =>
  error instanceof AppError
    ? error
    : (error as { cause?: unknown })?.cause instanceof AppError
      ? (error as { cause: AppError }).cause
      : null;

const revived = (stored: { code: ErrorCode; message: string; extra: Record<string, unknown> }) =>
  new AppError(stored.code, stored.message, stored.extra);

/** Forgets keys older than 24 hours. */
export async function pruneIdempotencyRecords(): Promise<number> {
  const { deletedCount } = await IdempotencyRecord.deleteMany({ createdAt: { $lt: new Date(nowMs() - keyLifetimeMs) } });
  return deletedCount;
}

export const idempotencyRetention = defineRetentionRule({
  records: 'idempotency keys',
  everyMs: 60 * 60_000,
  prune: pruneIdempotencyRecords,
});
