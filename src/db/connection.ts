import mongoose from 'mongoose';
import { settings } from '../config.ts';
import { databaseFault } from '../errors/database-faults.ts';
import { log } from '../logger.ts';

/**
 * The driver's waits on a database that does not answer, from DATABASE_TIMEOUT_MS, so that a call answers within
 * about the bound: half of it to learn that the store stopped answering (its heartbeat, sent every second, given
 * up on after half the bound: the store is then marked unreachable, and the operations waiting on it fail at once,
 * their connections closed under them), and half for the one more try the driver gives a read (selecting the store
 * again). Selecting the store, taking a pooled connection and opening one wait half the bound too. A slow
 * operation on a store that answers its heartbeat is not cut short; one that gets no reply for six times the bound
 * (the store answers heartbeats but not it, as over a stalled disk) is. Each option the connection string names
 * itself wins.
 */
function waitBounds(uri: string, timeoutMs: number) {
  const half = Math.ceil(timeoutMs / 2);
  const bounds = {
    serverSelectionTimeoutMS: half,
    waitQueueTimeoutMS: half,
    connectTimeoutMS: half,
    heartbeatFrequencyMS: 1_000,
    socketTimeoutMS: timeoutMs * 6,
  };
  const named = new Set([...new URLSearchParams(uri.split('?')[1] ?? '').keys()].map((key) => key.toLowerCase()));
  return Object.fromEntries(Object.entries(bounds).filter(([option]) => !named.has(option.toLowerCase())));
}

export async function connectDatabase(uri: string, timeoutMs = settings().DATABASE_TIMEOUT_MS): Promise<typeof mongoose> {
  mongoose.set('strictQuery', true);
  await mongoose.connect(uri, { ...waitBounds(uri, timeoutMs), autoIndex: true });
  // Indexes are declared on the models: the store holds exactly those (built, and any no longer declared dropped) before serving.
  await Promise.all(Object.values(mongoose.models).map((model) => model.syncIndexes()));
  return mongoose;
}

export async function disconnectDatabase() {
  await mongoose.disconnect();
}

export const databaseReady = () => mongoose.connection.readyState === 1;

/** True for an error that says the database could not be reached or did not answer (not that it refused the operation). */
export const isDatabaseUnreachable = (error: unknown): boolean => !databaseReady() || databaseFault(error) === 'unavailable';

/**
 * Calls `onLost` once the connection has been down for `graceMs` without
 * coming back (the driver reconnects by itself meanwhile, calls answer 503
 * database_unavailable and /healthz 503), so a supervisor can restart a
 * service that would otherwise answer 503 forever. Says when the connection
 * goes and comes back. Returns the function that stops watching.
 */
export function watchConnection(graceMs: number, onLost: (reason: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let lostAt = 0;
  const down = () => {
    if (timer) return;
    lostAt = Date.now();
    log.info('database connection lost: calls answer 503 database_unavailable until it is back', { exitInMs: graceMs });
    timer = setTimeout(() => onLost(`the database connection was lost ${Math.round(graceMs / 1000)} s ago and has not come back`), graceMs);
  };
  const up = () => {
    if (!timer) return;
    clearTimeout(timer);
    timer = undefined;
    log.info('database connection back', { lostForMs: Date.now() - lostAt });
  };
  mongoose.connection.on('disconnected', down);
  mongoose.connection.on('connected', up);
  return () => {
    clearTimeout(timer);
    mongoose.connection.off('disconnected', down);
    mongoose.connection.off('connected', up);
  };
}
