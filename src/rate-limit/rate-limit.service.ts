import { nowMs } from '../clock.ts';
import { storeIsFerretDb } from '../db/connection.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { withKeyLock } from '../db/key-lock.ts';
import { updateIfMatches } from '../db/update-if-matches.ts';
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
 * the last minute. On MongoDB that is one conditional update of the key's
 * document, so API replicas sharing the database never admit more than
 * `limit`; on FerretDB see consumeWithProcessCopy.
 */
export function consumeRateLimit(key: string, limit: number, now = nowMs()): Promise<RateLimitDecision> {
  return withKeyLock(`rate:${key}`, () => (storeIsFerretDb() ? consumeWithProcessCopy(key, limit, now) : consumeAtomically(key, limit, now)));
}

async function consumeAtomically(key: string, limit: number, now: number): Promise<RateLimitDecision> {
  const roomLeft = { $or: [{ [`hits.${limit - 1}`]: { $exists: false } }, { 'hits.0': { $lte: now - windowMs } }] };
  const admit = { $push: { hits: { $each: [now], $slice: -limit } }, $set: { lastHit: now } };
  // Twice at most: a key's first two requests may race to create its window.
  for (let attempt = 0; attempt < 2; attempt++) {
    const admitted = await updateIfMatches(RateLimitWindow, key, roomLeft, admit);
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

/** The process's copy of each window it wrote, most recent last; bounded, a dropped one is read again. */
const windowCopies = new Map<string, number[]>();
const maxWindowCopies = 50_000;

/**
 * On FerretDB one API process serves the store and every window update
 * passes through it (serialized per key), so its own copy of a window is
 * the stored one: the decision needs no read, and the request costs one
 * write. A copy it does not have (after a restart) is read once.
 */
async function consumeWithProcessCopy(key: string, limit: number, now: number): Promise<RateLimitDecision> {
  const known = windowCopies.get(key) ?? (await RateLimitWindow.findById(key).lean<RateLimitWindowDoc>())?.hits ?? [];
  const inWindow = known.filter((t) => t > now - windowMs);
  const allowed = inWindow.length < limit;
  const hits = allowed ? [...inWindow, now].slice(-limit) : inWindow;
  if (allowed) await RateLimitWindow.updateOne({ _id: key }, { $set: { hits, lastHit: now } }, { upsert: true });
  windowCopies.delete(key);
  windowCopies.set(key, hits);
  if (windowCopies.size > maxWindowCopies) windowCopies.delete(windowCopies.keys().next().value!);
  return decide(hits, now, limit, allowed);
}

/** Drops the windows of keys idle for over a minute (FerretDB has no TTL indexes to do it). */
export async function pruneIdleRateLimitWindows(now = nowMs()): Promise<number> {
  for (const [key, hits] of windowCopies) if ((hits.at(-1) ?? 0) < now - windowMs) windowCopies.delete(key);
  const result = await RateLimitWindow.deleteMany({ lastHit: { $lt: now - windowMs } });
  return result.deletedCount;
}
