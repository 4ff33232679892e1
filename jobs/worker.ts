import { MongoBackend } from '@agendajs/mongo-backend';
import { Agenda, type Job } from 'agenda';
import mongoose from 'mongoose';
import { log } from '../src/logger.ts';
import type { JobDefinition } from './job-definition.ts';
import { jobRegistry } from './registry.ts';

let agenda: Agenda | undefined;

function backend() {
  return new MongoBackend({ mongo: mongoose.connection.db! as never, collection: 'agenda_jobs' });
}

/** Enqueues a job; the API role calls this, a worker process runs it. */
export async function enqueueJob(name: string, payload: Record<string, unknown>): Promise<void> {
  agenda ??= new Agenda({ backend: backend() });
  await agenda.now(name, payload);
}

async function runWithRetries(definition: JobDefinition, job: Job) {
  const payload = definition.payload.parse(job.attrs.data ?? {});
  try {
    await definition.handle(payload);
  } catch (error) {
    const failures = (job.attrs.failCount ?? 0) + 1;
    if (failures <= definition.retries) {
      job.schedule(new Date(Date.now() + 2 ** failures * 1000));
      await job.save();
    }
    log.error('job failed', { job: definition.name, failures, error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

/** Starts processing every registered job in this process. */
export async function startWorker(options: { concurrency: number }): Promise<{ stop: () => Promise<void> }> {
  const worker = new Agenda({ backend: backend(), processEvery: '1 second', maxConcurrency: options.concurrency });
  for (const definition of jobRegistry) {
    worker.define(definition.name, (job: Job) => runWithRetries(definition, job), {
      lockLifetime: definition.lockLifetimeMs ?? 10 * 60_000,
    });
  }
  await worker.start();
  for (const definition of jobRegistry) {
    if (definition.every) await worker.every(definition.every, definition.name, {});
  }
  agenda = worker;
  log.info('worker started', { jobs: jobRegistry.map((j) => j.name) });
  return { stop: () => worker.stop() };
}
