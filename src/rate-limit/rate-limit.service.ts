import mongoose, { Schema } from 'mongoose';
import { withKeyLock } from '../db/key-lock.ts';
import { updateIfMatches } from '../db/update-if-matches.ts';

/** One document per key: the timestamps (ms) of its last `limit` accepted requests. */
const RateLimitWindow = mongoose.model<WindowDoc>(
  'RateLimitWindow',
  new Schema({ _id: String, hits: [Number], lastHit: { type: Number, index: true } }, { versionKey: false }),
  'rate_limit_windows',
);

const windowMs = 60_000;

interface WindowDoc {
  _id: string;
  hits: number[];
  lastHit: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest request in the window leaves it. */
  resetSeconds: number;
}

const duplicateKey = (error: unknown) => (error as { code?: number }).code === 11000;

function decide(hits: number[], now: number, limit: number, allowed: boolean): RateLimitDecision {
  const inWindow = hits.filter((t) => t > now - windowMs);
  const oldest = inWindow[0] ?? now;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - inWindow.length),
    resetSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)),
  };
}

/**
 * Counts one request against a rolling one-minute window, exactly: the
 * request is recorded only if fewer than `limit` requests were accepted in
 * the last minute, by a conditional update of the key's document, so API
 * replicas sharing the database never admit more than `limit`.
 */
export function consumeRateLimit(keyId: string, limit: number, now = Date.now()): Promise<RateLimitDecision> {
  return withKeyLock(`rate:${keyId}`, async () => {
    const roomLeft = { $or: [{ [`hits.${limit - 1}`]: { $exists: false } }, { 'hits.0': { $lte: now - windowMs } }] };
    const admit = { $push: { hits: { $each: [now], $slice: -limit } }, $set: { lastHit: now } };
    // Twice at most: a key's first two requests may race to create its window.
    for (let attempt = 0; attempt < 2; attempt++) {
      const admitted = await updateIfMatches(RateLimitWindow, keyId, roomLeft, admit);
      if (admitted) return decide(admitted.hits, now, limit, true);
      const current = await RateLimitWindow.findById(keyId).lean<WindowDoc>();
      if (current) return decide(current.hits, now, limit, false);
      try {
        await RateLimitWindow.create({ _id: keyId, hits: [now], lastHit: now });
        return decide([now], now, limit, true);
      } catch (error) {
        if (!duplicateKey(error)) throw error;
      }
    }
    const current = await RateLimitWindow.findById(keyId).lean<WindowDoc>();
    return decide(current?.hits ?? [], now, limit, false);
  });
}

/** Drops the windows of keys idle for over a minute (FerretDB has no TTL indexes to do it). */
export async function pruneIdleRateLimitWindows(now = Date.now()): Promise<number> {
  const result = await RateLimitWindow.deleteMany({ lastHit: { $lt: now - windowMs } });
  return result.deletedCount;
}
