import { nowMs } from '../clock.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { RateLimitWindow, type RateLimitWindowDoc } from './rate-limit-window.model.ts';

const windowMs = 60_000;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest request in the window leaves it. */
  resetSeconds: number;
}

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
 * the last minute, by one conditional update of the key's document, so API
 * processes sharing the database never admit more than `limit` together.
 */
export async function consumeRateLimit(key: string, limit: number, now = nowMs()): Promise<RateLimitDecision> {
  const roomLeft = { $or: [{ [`hits.${limit - 1}`]: { $exists: false } }, { 'hits.0': { $lte: now - windowMs } }] };
  const admit = { $push: { hits: { $each: [now], $slice: -limit } }, $set: { lastHit: now } };
  // Twice at most: a key's first two requests may race to create its window.
  for (let attempt = 0; attempt < 2; attempt++) {
    const admitted = await RateLimitWindow.findOneAndUpdate({ _id: key, ...roomLeft }, admit, {
      returnDocument: 'after',
    }).lean<RateLimitWindowDoc>();
    if (admitted) return decide(admitted.hits, now, limit, true);
    const current = await RateLimitWindow.findById(key).lean<RateLimitWindowDoc>();
    if (current) return decide(current.hits, now, limit, false);
    try {
      await RateLimitWindow.create({ _id: key, hits: [now], lastHit: now });
      return decide([now], now, limit, true);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
  const current = await RateLimitWindow.findById(key).lean<RateLimitWindowDoc>();
  return decide(current?.hits ?? [], now, limit, false);
}

/** Drops the windows of keys idle for over a minute (FerretDB has no TTL indexes to do it). */
export async function pruneIdleRateLimitWindows(now = nowMs()): Promise<number> {
  const result = await RateLimitWindow.deleteMany({ lastHit: { $lt: now - windowMs } });
  return result.deletedCount;
}
