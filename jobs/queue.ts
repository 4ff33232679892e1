import { MongoBackend } from '@agendajs/mongo-backend';
import { Agenda, InMemoryNotificationChannel } from 'agenda';
import mongoose from 'mongoose';
import { withKeyLock } from '../src/db/key-lock.ts';

let queue: Agenda | undefined;

type LockingRepository = Record<'lockJob' | 'getNextJobToRun', (...args: unknown[]) => Promise<unknown>>;

/**
 * FerretDB applies Agenda's locking findOneAndUpdate as read-then-write, so
 * two lock attempts in one process could both take the same job; queue them
 * (a no-op on MongoDB, where the update is atomic across processes).
 */
function serializeJobLocking(repository: LockingRepository) {
  for (const method of ['lockJob', 'getNextJobToRun'] as const) {
    const original = repository[method].bind(repository);
    repository[method] = (...args) => withKeyLock('agenda:lock', () => original(...args));
  }
}

/**
 * The process's one Agenda instance, on the jobs collection in the service's
 * database. The API role only saves jobs with it; the worker role starts it.
 * When both run in one process, the in-memory channel hands a new job to the
 * worker at once instead of at the next poll.
 */
export function jobQueue(options: { concurrency?: number } = {}): Agenda {
  if (queue) return queue;
  const backend = new MongoBackend({ mongo: mongoose.connection.db! as never, collection: 'agenda_jobs' });
  serializeJobLocking(backend.repository as unknown as LockingRepository);
  queue = new Agenda({
    backend,
    notificationChannel: new InMemoryNotificationChannel(),
    processEvery: '1 second',
    maxConcurrency: options.concurrency ?? 5,
  });
  return queue;
}

/** Saves a job to run as soon as a worker is free. */
export async function enqueueJob(name: string, payload: Record<string, unknown>): Promise<void> {
  await jobQueue().now(name, payload);
}

/** Forgets the instance (its connection is closing), so a later connection gets a fresh one. */
export function resetJobQueue() {
  queue = undefined;
}
