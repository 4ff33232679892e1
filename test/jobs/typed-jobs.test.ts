import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mongoose from 'mongoose';
import { z } from 'zod';
import { handleJob } from '../../src/jobs/job-handler.ts';
import { defineJobContract, type GiveUpReason } from '../../src/jobs/job-contract.ts';
import { enqueue, jobQueue } from '../../src/jobs/queue.ts';
import { defineWorkerJob, startWorker } from '../../src/worker/worker.ts';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { setLogLevel } from '../../src/logger.ts';
import { freshDatabaseUri } from '../support/database.ts';

let stopWorker: () => Promise<void>;
beforeAll(async () => {
  setLogLevel('silent');
  await connectDatabase(freshDatabaseUri());
  stopWorker = (await startWorker({ concurrency: 2 })).stop;
});
afterAll(async () => {
  await stopWorker();
  await disconnectDatabase();
});

/** A job whose handler fails `failures` times per item, recording each start and each give-up (which fails `giveUpFailures` times). */
function flakyJob(name: string, failures: number, giveUpFailures = 0) {
  const starts: string[] = [];
  const givenUp: Array<{ item: string; reason: GiveUpReason }> = [];
  const job = defineJobContract({ name, payload: z.object({ item: z.string().min(1) }), retries: 2 });
  const handler = handleJob(job, {
    handle: async ({ item }) => {
      starts.push(item);
      if (starts.filter((s) => s === item).length <= failures) throw new Error(`attempt failed for ${item}`);
    },
    giveUp: async ({ item }, reason) => {
      if (giveUpFailures-- > 0) throw new Error('the store was away');
      givenUp.push({ item, reason });
    },
  });
  defineWorkerJob(jobQueue(), handler);
  return { job, starts, givenUp };
}

const until = async (done: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await done()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(await done()).toBe(true);
};

describe('typed jobs', () => {
  it('checks the payload when it is enqueued: a bad one is refused and nothing is queued', async () => {
    const { job } = flakyJob('test.payload', 0);
    const jobs = mongoose.connection.db!.collection('agenda_jobs');
    await expect(enqueue(job, { item: '' } as never)).rejects.toThrow(/item/);
    await expect(enqueue(job, { other: 1 } as never)).rejects.toThrow();
    expect(await jobs.countDocuments({ name: 'test.payload' })).toBe(0);
  });

  it('checks the payload again when the job runs: a job saved around the contract is dropped, not run', async () => {
    const { starts, givenUp } = flakyJob('test.saved-around', 0);
    const jobs = mongoose.connection.db!.collection('agenda_jobs');
    await jobQueue().now('test.saved-around', { item: 42 });
    await until(async () => (await jobs.countDocuments({ name: 'test.saved-around' })) === 0);
    expect(starts).toEqual([]);
    expect(givenUp).toEqual([]);
  });

  it('retries a failing job with backoff, then gives it up once its attempts are spent', async () => {
    const { job, starts, givenUp } = flakyJob('test.failing', 99);
    await enqueue(job, { item: 'a' });
    await until(() => givenUp.length === 1);
    expect(starts).toEqual(['a', 'a', 'a']);
    expect(givenUp[0]).toEqual({ item: 'a', reason: { kind: 'failed', message: 'attempt failed for a', starts: 3 } });
  });

  it('runs a job again when giving it up failed, until it is given up', async () => {
    const { job, starts, givenUp } = flakyJob('test.giveup-fails', 99, 1);
    await enqueue(job, { item: 'd' });
    await until(() => givenUp.length === 1, 20_000);
    expect(starts).toEqual(['d', 'd', 'd']);
    expect(givenUp[0]).toMatchObject({ item: 'd', reason: { kind: 'failed' } });
  }, 30_000);

  it('runs a job that succeeds on a retry once more, and never gives it up', async () => {
    const { job, starts, givenUp } = flakyJob('test.recovering', 1);
    await enqueue(job, { item: 'b' });
    await until(() => starts.length === 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(starts).toEqual(['b', 'b']);
    expect(givenUp).toEqual([]);
    expect(await mongoose.connection.db!.collection('job_attempts').countDocuments()).toBe(0);
  });

  it('counts starts a dead worker never reported: a job started too often is given up as interrupted, not run', async () => {
    const { job, starts, givenUp } = flakyJob('test.interrupted', 0);
    const scheduled = await jobQueue().schedule(new Date(Date.now() + 1_500), job.name, { item: 'c' });
    // As if three workers had died running it.
    await mongoose.connection.db!.collection('job_attempts').insertOne({ _id: String(scheduled.attrs._id) as never, starts: 3 });
    await until(() => givenUp.length === 1);
    expect(starts).toEqual([]);
    expect(givenUp[0]).toEqual({ item: 'c', reason: { kind: 'interrupted', message: 'the job was interrupted 3 times', starts: 3 } });
  });
});
