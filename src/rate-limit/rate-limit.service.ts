import { nowMs } from '../clock.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { defineRetentionRule } from '../db/retention.ts';
import { RateLimitWindow, type RateLimitWindowDoc } from './rate-limit-window.model.ts';

/** A key's window lasts one minute from the request that opens it. */
export const rateLimitWindowSeconds = 60;
const windowMs = rateLimitWindowSeconds * 1000;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the key's window ends and its count starts again (1 to 60). */
  resetSeconds: number;
}

/** Windows opened at or before `cutoff`, or with no start (the earlier limiter's list of times): over. */
const over = (cutoff: number) => ({ start: { $not: { $gt: cutoff } } });

function decide(window: Pick<RateLimitWindowDoc, 'start' | 'count'>, now: number, limit: number): RateLimitDecision {
  return {
    allowed: window.count <= limit,
    limit,
    remaining: Math.max(0, limit - window.count),
    resetSeconds: Math.min(rateLimitWindowSeconds, Math.max(1, Math.ceil((window.start + windowMs - now) / 1000))),
  };
}

/**
 * Counts one request in the key's fixed one-minute window: the first `limit`
 * requests of a window are admitted, the rest refused until it ends. One
 * atomic `$inc` of a small document per request (two when the request opens
 * the window), whatever the limit, so API processes sharing the database
 * admit exactly `limit` a window together. A store that cannot record the
 * request throws its error.
 */
export async function consumeRateLimit(key: string, limit: number, now = nowMs()): Promise<RateLimitDecision> {
  const cutoff = now - windowMs;
  // A request that finds no open window opens one; if another request opened it first (a duplicate _id), it is
  // counted in that one. A third turn would need that window to have ended meanwhile.
  for (let turn = 0; turn < 3; turn++) {
    const counted = await RateLimitWindow.findOneAndUpdate(
      { _id: key, start: { $gt: cutoff } },
      { $inc: { count: 1 } },
      { returnDocument: 'after' },
    ).lean<RateLimitWindowDoc>();
    if (counted) return decide(counted, now, limit);
    const opened = { start: now, count: 1 };
    try {
      await RateLimitWindow.replaceOne({ _id: key, ...over(cutoff) }, opened, { upsert: true });
      return decide(opened, now, limit);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
  throw new Error(`The rate-limit window of ${key} changed under three turns in a row`);
}

/** Drops the windows that are over. */
export async function pruneIdleRateLimitWindows(now = nowMs()): Promise<number> {
  const result = await RateLimitWindow.deleteMany(over(now - windowMs));
  return result.deletedCount;
}

export const rateLimitRetention = defineRetentionRule({
  records: 'idle rate-limit windows',
  everyMs: 10 * 60_000,
  prune: () => pruneIdleRateLimitWindows(),
});
