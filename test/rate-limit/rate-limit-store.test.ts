import mongoose from 'mongoose';
import { BSON } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { setLogLevel } from '../../src/logger.ts';
import { consumeRateLimit } from '../../src/rate-limit/rate-limit.service.ts';
import { freshDatabaseUri } from '../support/database.ts';

beforeAll(async () => {
  setLogLevel('silent');
  await connectDatabase(freshDatabaseUri());
});
afterAll(() => disconnectDatabase());

const windows = () => mongoose.connection.db!.collection<{ _id: string }>('rate_limit_windows');
const at = Date.UTC(2030, 0, 1, 12, 0, 30);

describe('the rate limit in the store', () => {
  it("admits all of a fresh key's concurrent first requests up to the limit, round after round", async () => {
    for (let round = 0; round < 60; round++) {
      const decisions = await Promise.all(Array.from({ length: 8 }, () => consumeRateLimit(`fresh-${round}`, 6, at)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(6);
      expect(decisions.map((d) => d.remaining).sort((a, b) => a - b)).toEqual([0, 0, 0, 1, 2, 3, 4, 5]);
    }
  });

  it("keeps a key's stored state to one small document however many requests a high limit admits", async () => {
    for (let batch = 0; batch < 60; batch++) {
      const decisions = await Promise.all(Array.from({ length: 50 }, (_, n) => consumeRateLimit('busy', 100_000, at + batch * 500 + n)));
      expect(decisions.every((d) => d.allowed)).toBe(true);
    }
    const stored = await windows().find({ _id: 'busy' }).toArray();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ count: 3000 });
    expect(BSON.calculateObjectSize(stored[0]!)).toBeLessThan(100);
    expect((await consumeRateLimit('busy', 100_000, at + 30_000)).remaining).toBe(96_999);
  });

  it('replaces a window the earlier limiter stored (a list of request times) with a small one', async () => {
    const hits = Array.from({ length: 5_000 }, (_, n) => at - 50_000 + n);
    await windows().insertOne({ _id: 'listed', hits, lastHit: hits.at(-1) } as never);
    const decision = await consumeRateLimit('listed', 100, at);
    expect(decision).toMatchObject({ allowed: true, remaining: 99, resetSeconds: 60 });
    expect(await windows().findOne({ _id: 'listed' })).toEqual({ _id: 'listed', start: at, count: 1 });
  });
});
