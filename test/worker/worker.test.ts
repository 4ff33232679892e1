import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';
import { startWorker } from '../../src/worker/worker.ts';
import { loadConfig } from '../../src/config.ts';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { consumeRateLimit } from '../../src/rate-limit/rate-limit.service.ts';
import { setLogLevel } from '../../src/logger.ts';
import { freshDatabaseUri } from '../support/database.ts';

// Commands are watched: a test counts the worker's lookups of due jobs.
const databaseUri = `${freshDatabaseUri()}?monitorCommands=true`;

beforeAll(async () => {
  setLogLevel('silent');
  await connectDatabase(databaseUri);
});
afterAll(() => disconnectDatabase());

describe('job worker', () => {
  it('runs the registered recurring jobs: idle rate-limit windows are pruned, active ones kept', async () => {
    const windows = mongoose.connection.db!.collection('rate_limit_windows');
    await consumeRateLimit('idle-key', 5, Date.now() - 5 * 60_000);
    await consumeRateLimit('active-key', 5);
    expect(await windows.countDocuments()).toBe(2);

    const worker = await startWorker({ concurrency: 2 });
    try {
      const deadline = Date.now() + 15_000;
      while ((await windows.countDocuments()) > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect((await windows.find().toArray()).map((w) => w._id)).toEqual(['active-key']);
      const job = await mongoose.connection.db!.collection('agenda_jobs').findOne({ name: 'retention.prune' });
      expect(job).toMatchObject({ repeatInterval: 5 * 60_000 });
    } finally {
      await worker.stop();
    }
  }, 30_000);

  it('removes the recurring jobs no handler runs any more, keeping the others', async () => {
    const jobs = mongoose.connection.db!.collection('agenda_jobs');
    const retired = { type: 'single', repeatInterval: '1 hour', nextRunAt: new Date(), data: {} };
    await jobs.insertMany([
      { name: 'oauth.prune', ...retired },
      { name: 'endpoint-cache.expire', ...retired },
    ]);
    const worker = await startWorker({ concurrency: 2 });
    try {
      expect(await jobs.countDocuments({ name: { $in: ['oauth.prune', 'endpoint-cache.expire'] } })).toBe(0);
      expect(await jobs.countDocuments({ name: 'retention.prune' })).toBe(1);
    } finally {
      await worker.stop();
    }
  }, 30_000);

  it('keeps a recurring job to an interval under a second: with OUTREACH_TICK_MS=200 the sending engine runs every 200 ms', async () => {
    loadConfig({ ...process.env, OUTREACH_TICK_MS: '200' });
    // The earlier worker scheduled the engine's job at the default interval (30 s): its next run would be that far off.
    await mongoose.connection.db!.collection('agenda_jobs').deleteMany({ name: 'outreach.tick' });
    const worker = await startWorker({ concurrency: 2 });
    const runs = new Set<number>();
    const started = Date.now();
    let seconds: number;
    try {
      // Each run of the engine's job stamps its last run: 10 stamps take 2 s at its pace (longer on a loaded machine).
      while (runs.size < 10 && Date.now() - started < 20_000) {
        const job = await mongoose.connection.db!.collection('agenda_jobs').findOne({ name: 'outreach.tick' });
        if (job?.lastRunAt) runs.add((job.lastRunAt as Date).getTime());
        await new Promise((r) => setTimeout(r, 25));
      }
      seconds = (Date.now() - started) / 1_000;
    } finally {
      await worker.stop();
      loadConfig(); // the environment's settings again
    }
    // A worker that looked for due jobs once a second would stamp at most one a second (plus the first).
    expect(runs.size).toBe(10);
    expect(runs.size).toBeGreaterThan(Math.floor(seconds) + 1);
  }, 30_000);

  it('looks up the other jobs once a second while one is due every 200 ms', async () => {
    loadConfig({ ...process.env, OUTREACH_TICK_MS: '200' });
    await mongoose.connection.db!.collection('agenda_jobs').deleteMany({ name: 'outreach.tick' });
    const lookups = new Map<string, number>();
    const client = mongoose.connection.getClient();
    const count = (event: CommandStartedEvent) => {
      if (event.commandName !== 'findAndModify' || event.command.findAndModify !== 'agenda_jobs') return;
      const name = String(event.command.query?.name);
      lookups.set(name, (lookups.get(name) ?? 0) + 1);
    };
    const worker = await startWorker({ concurrency: 2 });
    client.on('commandStarted', count);
    const started = Date.now();
    let seconds: number;
    try {
      // Until the engine's job was looked up 15 times (3 s at its pace; longer on a loaded machine).
      while ((lookups.get('outreach.tick') ?? 0) < 15 && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 20));
      seconds = (Date.now() - started) / 1_000;
    } finally {
      client.off('commandStarted', count);
      await worker.stop();
      loadConfig();
    }
    expect(lookups.get('outreach.tick')).toBeGreaterThanOrEqual(15);
    const others = [...lookups].filter(([name]) => name !== 'outreach.tick');
    expect(others.length).toBeGreaterThan(0);
    // Once a second: at most one lookup a second each (plus the first), not one each time the engine's job is looked up.
    for (const [name, times] of others) expect(times, name).toBeLessThanOrEqual(Math.min(Math.floor(seconds) + 1, 14));
  }, 30_000);
});
