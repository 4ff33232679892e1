import mongoose from 'mongoose';
import { settings } from '../config.ts';
import { databaseFault, storageFullError } from '../errors/database-faults.ts';
import { log } from '../logger.ts';
import { databaseReady } from './connection.ts';

/** What /healthz answers: 200 `{ ok: true }` when all is well; otherwise what is wrong, for a supervisor to read. */
export interface HealthReport {
  status: 200 | 503;
  body: { ok: boolean; database?: 'unavailable'; storage?: 'full'; since?: string; error?: string };
}

/** How long /healthz waits for the database to answer its ping: a few seconds at most, whatever DATABASE_TIMEOUT_MS. */
const pingBoundMs = () => Math.min(2_000, settings().DATABASE_TIMEOUT_MS);
/** A probe's answer is reused this long, so that polling /healthz costs the store one ping (and one write while full) a second. */
const reuseMs = 1_000;

interface Probe {
  startedAt: number;
  /** Resolves true when the store answered, false when it failed; never rejects. */
  answer: Promise<boolean>;
  settledAt?: number;
}

/** One probe at a time: a store that does not answer holds one ping, not one per /healthz request. */
function reusable(run: () => Promise<unknown>): () => Probe {
  let probe: Probe | undefined;
  return () => {
    if (probe && (probe.settledAt === undefined || Date.now() - probe.settledAt < reuseMs)) return probe;
    const started: Probe = { startedAt: Date.now(), answer: Promise.resolve(false) };
    started.answer = run().then(
      () => true,
      () => false,
    );
    void started.answer.then(() => (started.settledAt = Date.now()));
    probe = started;
    return started;
  };
}

/** The probe's answer, or false once it has been waited on for `boundMs` in all. */
async function answered(probe: Probe, boundMs: number): Promise<boolean> {
  const left = probe.startedAt + boundMs - Date.now();
  if (left <= 0) return probe.settledAt === undefined ? false : probe.answer;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((done) => (timer = setTimeout(() => done(false), left)));
  try {
    return await Promise.race([probe.answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

const ping = reusable(() => mongoose.connection.db!.command({ ping: 1 }));

/** When a write last failed for lack of disk space, until a write succeeds again. */
let storageFullSince: Date | undefined;

/** A write of its own, made only while the storage is reported full, to see whether writes succeed again. */
const storageProbe = reusable(async () => {
  await mongoose.connection
    .db!.collection<{ _id: string; at: Date }>('store_probes')
    .updateOne({ _id: 'healthz' }, { $set: { at: new Date() } }, { upsert: true });
  if (!storageFullSince) return;
  storageFullSince = undefined;
  log.info('storage: writes succeed again');
});

/** Records a database fault a call met: a full disk is reported by /healthz (and logged once) until a write succeeds again. */
export function noteDatabaseFault(error: unknown): void {
  if (storageFullSince || databaseFault(error) !== 'storage_full') return;
  storageFullSince = new Date();
  const { MONGODB_URI, DATA_DIR } = settings();
  const where = MONGODB_URI ? "the database server's disk (MONGODB_URI)" : `the disk under DATA_DIR (${DATA_DIR})`;
  log.error(`storage full: ${where} has no space left; writes answer 507 storage_full until space is freed, reads are served`);
}

/** The service's health as /healthz reports it: the database answering its ping, and whether writes fail for lack of space. */
export async function healthReport(): Promise<HealthReport> {
  const bound = pingBoundMs();
  if (!databaseReady() || !(await answered(ping(), bound))) {
    const error = databaseReady()
      ? `The database did not answer a ping within ${bound} ms`
      : 'The database connection is down; the driver is reconnecting';
    return { status: 503, body: { ok: false, database: 'unavailable', error } };
  }
  if (storageFullSince) await answered(storageProbe(), bound);
  if (!storageFullSince) return { status: 200, body: { ok: true } };
  // Still 200: reads are served, and restarting the service frees no space.
  const error = storageFullError('writes fail').message;
  return { status: 200, body: { ok: false, storage: 'full', since: storageFullSince.toISOString(), error } };
}
