import { exponential, type Job } from 'agenda';
import { log } from '../src/logger.ts';
import type { JobDefinition } from './job-definition.ts';
import { jobQueue, resetJobQueue } from './queue.ts';
import { jobRegistry } from './registry.ts';

/**
 * Runs one job, renewing its lock while it works: a live worker keeps the
 * job however long it takes, and a dead one's lock lapses after the job's
 * lock lifetime so another worker takes the job over.
 */
async function handle(definition: JobDefinition, job: Job, lockLifetimeMs: number) {
  const renew = setInterval(() => void job.touch().catch(() => undefined), Math.max(500, lockLifetimeMs / 3));
  try {
    await definition.handle(definition.payload.parse(job.attrs.data ?? {}));
  } catch (error) {
    log.error('job failed', { job: definition.name, attempt: (job.attrs.failCount ?? 0) + 1, error: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    clearInterval(renew);
  }
}

/** Starts processing every registered job in this process; retries follow each job's `retries` with exponential backoff. */
export async function startWorker(options: { concurrency: number }): Promise<{ stop: () => Promise<void> }> {
  const worker = jobQueue({ concurrency: options.concurrency });
  for (const definition of jobRegistry) {
    const lockLifetime = definition.lockLifetimeMs?.() ?? 10 * 60_000;
    worker.define(definition.name, (job: Job) => handle(definition, job, lockLifetime), {
      lockLifetime,
      // Finished one-off jobs leave nothing behind (recurring ones are kept by Agenda): its lookups for the
      // next job would read every old one on FerretDB.
      removeOnComplete: true,
      backoff: exponential({ delay: 1_000, maxRetries: definition.retries, maxDelay: 5 * 60_000 }),
    });
  }
  await worker.start();
  for (const definition of jobRegistry) {
    if (definition.every) await worker.every(definition.every, definition.name, {});
  }
  log.info('worker started', { jobs: jobRegistry.map((j) => j.name) });
  return {
    stop: async () => {
      await worker.stop();
      resetJobQueue();
    },
  };
}
