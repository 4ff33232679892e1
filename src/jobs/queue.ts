import { MongoBackend } from '@agendajs/mongo-backend';
import { Agenda, InMemoryNotificationChannel } from 'agenda';
import mongoose from 'mongoose';
import type { z } from 'zod';
import { nowMs } from '../clock.ts';
import type { JobContract } from './job-contract.ts';

let queue: Agenda | undefined;

/**
 * The process's one Agenda instance, on the jobs collection in the service's
 * database. The API role only saves jobs with it; the worker role starts it
 * (and decides how often it looks for due jobs: jobs/worker.ts).
 * When both run in one process, the in-memory channel hands a new job to the
 * worker at once instead of at the next poll.
 */
export function jobQueue(options: { concurrency?: number } = {}): Agenda {
  queue ??= newJobQueue(options);
  return queue;
}

/** Another Agenda instance on the jobs collection, for a worker processing some job names at a pace of their own. */
export function newJobQueue(options: { concurrency?: number } = {}): Agenda {
  const backend = new MongoBackend({ mongo: mongoose.connection.db! as never, collection: 'agenda_jobs' });
  return new Agenda({
    backend,
    notificationChannel: new InMemoryNotificationChannel(),
    maxConcurrency: options.concurrency ?? 5,
  });
}

/** Saves a job to run as soon as a worker is free; the payload is checked against the job's contract first. */
export async function enqueue<Payload extends z.ZodType>(job: JobContract<Payload>, payload: z.input<Payload>): Promise<void> {
  await jobQueue().now(job.name, job.payload.parse(payload) as Record<string, unknown>);
}

/** Saves a job to run at `when` (or as soon as a worker is free after it); the payload is checked first. */
export async function enqueueAt<Payload extends z.ZodType>(
  job: JobContract<Payload>,
  when: Date,
  payload: z.input<Payload>,
): Promise<void> {
  await jobQueue().schedule(when, job.name, job.payload.parse(payload) as Record<string, unknown>);
}

/**
 * Saves a job to run at `when` unless one whose payload has the same values of `identity` is in the queue (waiting,
 * running or failed), as work that may be queued again (after a crash) queues one job. Agenda's insert-only upsert:
 * two processes racing may still both insert, so the handler must make the work once itself (see its contract).
 */
export async function enqueueOnceAt<Payload extends z.ZodObject>(
  job: JobContract<Payload>,
  when: Date,
  payload: z.input<Payload>,
  identity: Array<keyof z.infer<Payload> & string>,
): Promise<void> {
  const data = job.payload.parse(payload) as Record<string, unknown>;
  const unique = Object.fromEntries(identity.map((field) => [`data.${field}`, data[field]]));
  await jobQueue().create(job.name, data).unique(unique, { insertOnly: true }).schedule(when).save();
}

/**
 * Work recorded before this time and still waiting for its first worker was left by a process that died between
 * recording it and queuing its job (a request's two writes are milliseconds apart): the stranded-work job queues it
 * again, with enqueueOnceAt, so work whose job is queued or running keeps that one.
 */
export const strandedBefore = () => new Date(nowMs() - 10 * 60_000);

/** Jobs due and not taken by a worker, by job name (the queue is small: finished one-off jobs are removed). */
export async function queueDepth(): Promise<Record<string, number>> {
  const due = await mongoose.connection
    .db!.collection<{ name: string }>('agenda_jobs')
    .find({ nextRunAt: { $lte: new Date() }, lockedAt: null, disabled: { $ne: true } }, { projection: { name: 1 } })
    .toArray();
  const depth: Record<string, number> = {};
  for (const { name } of due) depth[name] = (depth[name] ?? 0) + 1;
  return depth;
}

/** Forgets the instance (its connection is closing), so a later connection gets a fresh one. */
export function resetJobQueue() {
  queue = undefined;
}
