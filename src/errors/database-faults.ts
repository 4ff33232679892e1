import mongoose from 'mongoose';
import { settings } from '../config.ts';
import { AppError } from './app-error.ts';

/**
 * What went wrong with the database, when a thrown value says so:
 * - `storage_full`: the store refused a write for lack of disk space. FerretDB on SQLite answers
 *   SQLITE_FULL as an InternalError ("database or disk is full (13)"); MongoDB answers code 14031
 *   (OutOfDiskSpace), or passes WiredTiger's ENOSPC on in its message ("28: No space left on device").
 * - `unavailable`: the store did not answer in time or could not be reached: the driver gave up
 *   selecting it, waiting for a pooled connection, or connecting; or the pool was cleared under the
 *   call because the store stopped answering its heartbeat (src/db/connection.ts sets those bounds).
 */
export type DatabaseFault = 'storage_full' | 'unavailable';

const outOfDiskSpace = 14031;
const noSpace = /database or disk is full|no space left on device|\bENOSPC\b/i;

/** The fields a driver error, its write errors and its server reply may carry. */
interface Reported {
  code?: unknown;
  codeName?: unknown;
  message?: unknown;
  errmsg?: unknown;
  writeErrors?: unknown;
  writeConcernError?: unknown;
  errorResponse?: unknown;
  err?: unknown;
}

/** True when a server error, or any write error or reply it carries, reports a full disk. */
function reportsNoSpace(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null || depth > 3) return false;
  const reported = value as Reported;
  if (reported.code === outOfDiskSpace || reported.codeName === 'OutOfDiskSpace') return true;
  if ([reported.message, reported.errmsg].some((text) => typeof text === 'string' && noSpace.test(text))) return true;
  const inner = [
    ...(Array.isArray(reported.writeErrors) ? reported.writeErrors : []),
    reported.writeConcernError,
    reported.errorResponse,
    reported.err,
  ];
  return inner.some((item) => reportsNoSpace(item, depth + 1));
}

function isUnavailable(error: object): boolean {
  const { mongo } = mongoose;
  return (
    // Network errors include a reply that timed out and a pool cleared under the call.
    error instanceof mongo.MongoNetworkError ||
    error instanceof mongo.MongoServerSelectionError ||
    error instanceof mongo.MongoNotConnectedError ||
    error instanceof mongo.MongoTopologyClosedError ||
    error instanceof mongoose.Error.MongooseServerSelectionError ||
    // Not exported by the driver: known by its name.
    (error instanceof mongo.MongoDriverError && error.name === 'MongoWaitQueueTimeoutError')
  );
}

/** The database fault `error` reports, itself or as the cause of an error wrapping it (a TRPCError), if any. */
export function databaseFault(error: unknown): DatabaseFault | undefined {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 4; depth++) {
    if (isUnavailable(current)) return 'unavailable';
    if (current instanceof mongoose.mongo.MongoError && reportsNoSpace(current)) return 'storage_full';
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The disk the database writes to, named by the setting that chooses it (never its path: answers go to clients). */
const storageName = () => (settings().MONGODB_URI ? "The database server's disk (MONGODB_URI)" : 'The disk under DATA_DIR');

/** A 507 storage_full: `outcome` says what became of the call's writes; `cause` is the store's error. */
export function storageFullError(outcome: string, extra: Record<string, unknown> = {}, cause?: unknown): AppError {
  const error = new AppError(
    'storage_full',
    `${storageName()} is full: ${outcome}. Reads are served; writes succeed again once space is freed.`,
    extra,
  );
  if (cause !== undefined) error.cause = cause;
  return error;
}

/**
 * Where the call was when the fault came, which says what became of its change: `read` (it changes no data),
 * `not started` (it would have, but was refused before it began: checking its credential or its rate limit), or
 * `started` (it was under way: part or all of its change may have been made, and against a store that stopped
 * answering even after it was given up on, as its request was on its way).
 */
export type CallStage = 'read' | 'not started' | 'started';

/** The stage of a request that failed outside any procedure: a GET or HEAD only read; any other may have written. */
export const requestStage = (method: string | undefined): CallStage => (method === 'GET' || method === 'HEAD' ? 'read' : 'started');

const storageOutcome: Record<CallStage, string> = {
  read: 'this call could not store what it needed',
  'not started': "nothing of this call's change was stored",
  started: "this call's change was not stored, or only in part",
};

const unavailableOutcome: Record<CallStage, string> = {
  read: '',
  'not started': " This call's change was not applied.",
  started: " This call's change may or may not have been applied: read it back before repeating the call.",
};

/**
 * The answer to a database fault, saying what became of the call's change. `cause`, the store's own error, goes to
 * the log (src/logger.ts) and to /healthz (src/db/store-health.ts).
 */
export function databaseFaultError(fault: DatabaseFault, stage: CallStage, cause?: unknown): AppError {
  if (fault === 'storage_full') return storageFullError(storageOutcome[stage], {}, cause);
  const seconds = Math.max(1, Math.ceil(settings().DATABASE_TIMEOUT_MS / 1000));
  const error = new AppError(
    'database_unavailable',
    `The database is not answering (no answer within DATABASE_TIMEOUT_MS, ${seconds} s): try again in ${seconds} s.${unavailableOutcome[stage]}`,
    { retryAfter: seconds },
  );
  if (cause !== undefined) error.cause = cause;
  return error;
}
