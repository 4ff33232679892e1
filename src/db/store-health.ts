import { setImmediate } from 'node:timers';
import mongoose from 'mongoose';
import { settings } from '../config.ts';
import { databaseFault, storageFullError } from '../errors/database-faults.ts';
import { log } from '../logger.ts';
import { databaseReady } from './connection.ts';
import { StoreProbe } from './store-probe.model.ts';

/** What /healthz answers: 200 `{ ok: true }` when all is well; otherwise what is wrong, for a supervisor to read. */
export interface HealthReport {
  status: 200 | 503;
  body: { ok: boolean; database?: 'unavailable'; storage?: 'full'; since?: string; error?: string };
}

/** How long /healthz waits for the database to answer: a few seconds at most, whatever DATABASE_TIMEOUT_MS. */
const answerBoundMs = () => Math.min(2_000, settings().DATABASE_TIMEOUT_MS);
/** A probe's answer is reused this long, so that polling /healthz costs the store one question (and one write while full) a second. */
const reuseMs = 1_000;

interface Probe {
  startedAt: number;
  /** Resolves true when the store answered, false when it failed; never rejects. */
  answer: Promise<boolean>;
  /** Once settled: when, and the answer. */
  settled?: { at: number; answered: boolean };
}

/** One probe at a time: a store that does not answer holds one question, not one per /healthz request. */
function reusable(run: () => Promise<unknown>): () => Probe {
  let probe: Probe | undefined;
  return () => {
    if (probe && (!probe.settled || Date.now() - probe.settled.at < reuseMs)) return probe;
    const answer = run().then(
      () => true,
      () => false,
    );
    const started: Probe = { startedAt: Date.now(), answer };
    void started.answer.then((answered) => (started.settled = { at: Date.now(), answered }));
    probe = started;
    return started;
  };
}

/** The probe's answer, or false once it has been waited on for `boundMs` since it started. */
async function answered(probe: Probe, boundMs: number): Promise<boolean> {
  if (probe.settled) return probe.settled.answered;
  const left = probe.startedAt + boundMs - Date.now();
  if (left <= 0) return false;
  let timer: NodeJS.Timeout | undefined;
  // Given up on after the I/O already waiting is read: after a stall of this process, the answer may be there.
  const late = new Promise<false>((done) => (timer = setTimeout(() => setImmediate(() => done(false)), left)));
  try {
    return await Promise.race([probe.answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `hello`, as the driver's heartbeat: FerretDB answers it without its storage (its `ping` waits for the catalogue, which DDL holds). */
const hello = reusable(() => mongoose.connection.db!.command({ hello: 1 }));

/**
 * A full disk as writes met it: since when, and the last write it refused. SQLite can still fit a small write in
 * file space it already holds while larger ones fail, so one write that succeeds does not mean the disk has room:
 * the report clears once a write of /healthz's own succeeds and no write has failed for `quietMs`.
 */
let storageFull: { since: Date; lastFailure: number } | undefined;
const quietMs = 30_000;

/** A small write of /healthz's own, made only while the disk is reported full. */
const storageProbe = reusable(() =>
  StoreProbe.updateOne({ _id: 'healthz' }, { $set: { at: new Date() } }, { upsert: true })
    .exec()
    .catch((error: unknown) => {
      noteDatabaseFault(error);
      throw error;
    }),
);

/** Records a database fault a call met: a full disk is reported by /healthz (and logged once) until writes succeed again. */
export function noteDatabaseFault(error: unknown): void {
  if (databaseFault(error) !== 'storage_full') return;
  if (storageFull) {
    storageFull.lastFailure = Date.now();
    return;
  }
  storageFull = { since: new Date(), lastFailure: Date.now() };
  const { MONGODB_URI, DATA_DIR } = settings();
  const where = MONGODB_URI ? "the database server's disk (MONGODB_URI)" : `the disk under DATA_DIR (${DATA_DIR})`;
  log.error(`storage full: ${where} has no space left; writes answer 507 storage_full until space is freed, reads are served`);
}

/** The service's health as /healthz reports it: the database answering, and whether writes fail for lack of space. */
export async function healthReport(): Promise<HealthReport> {
  const bound = answerBoundMs();
  if (!databaseReady() || !(await answered(hello(), bound))) {
    const error = databaseReady()
      ? `The database did not answer within ${bound} ms`
      : 'The database connection is down; the driver is reconnecting';
    return { status: 503, body: { ok: false, database: 'unavailable', error } };
  }
  if (storageFull && (await answered(storageProbe(), bound)) && Date.now() - storageFull.lastFailure >= quietMs) {
    storageFull = undefined;
    log.info('storage: writes succeed again');
  }
  if (!storageFull) return { status: 200, body: { ok: true } };
  // Still 200: reads are served, and restarting the service frees no space.
  const error = storageFullError('writes fail').message;
  return { status: 200, body: { ok: false, storage: 'full', since: storageFull.since.toISOString(), error } };
}
