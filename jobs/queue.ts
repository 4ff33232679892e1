import { MongoBackend } from '@agendajs/mongo-backend';
import { Agenda, InMemoryNotificationChannel } from 'agenda';
import mongoose from 'mongoose';

let queue: Agenda | undefined;

/**
 * The process's one Agenda instance, on the jobs collection in the service's
 * database. The API role only saves jobs with it; the worker role starts it.
 * When both run in one process, the in-memory channel hands a new job to the
 * worker at once instead of at the next poll.
 */
export function jobQueue(options: { concurrency?: number } = {}): Agenda {
  queue ??= new Agenda({
    backend: new MongoBackend({ mongo: mongoose.connection.db! as never, collection: 'agenda_jobs' }),
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
