import { AsyncLocalStorage } from 'node:async_hooks';
import { databaseFault } from './errors/database-faults.ts';

const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = keyof typeof levels;
type LineLevel = Exclude<Level, 'silent'>;

let threshold: number = levels.info;

let allToStderr = false;

/** Where a finished line goes; null means the process streams. */
type LogSink = (line: string, level: LineLevel) => void;
let sink: LogSink | null = null;

/**
 * The request being handled, carried through every await of its handling
 * (AsyncLocalStorage, which Node and Deno both provide), so a log line
 * written anywhere inside it names the request without the id being passed
 * down through services and procedures.
 */
const requestScope = new AsyncLocalStorage<{ requestId: string; facts: RequestFacts }>();

/** What the layers handling a request learn about it, for its one request log line. */
export interface RequestFacts {
  /** The route as declared (`/api/leads/{id}`), never the raw path: it labels metrics. */
  route?: string;
  /** The credential's public id (never the key). */
  keyId?: string;
}

export const setLogLevel = (level: Level) => {
  threshold = levels[level];
};

/** For the CLI, whose stdout carries only its JSON result. */
export const logToStderr = () => {
  allToStderr = true;
};

/**
 * Sends lines (each a JSON text without its newline) to `next` instead of
 * stdout/stderr, or back to the streams with null; returns the previous sink.
 * For tests that assert on what was logged.
 */
export const setLogSink = (next: LogSink | null): LogSink | null => {
  const previous = sink;
  sink = next;
  return previous;
};

/** Runs `handle` (and everything it awaits) as the request `requestId`: its log lines carry that id. */
export const runWithRequestId = <T>(requestId: string, handle: () => T): T => requestScope.run({ requestId, facts: {} }, handle);

/** Records facts about the request being handled (its route, its credential); a no-op outside a request. */
export const noteRequest = (facts: RequestFacts) => {
  const scope = requestScope.getStore();
  if (scope) Object.assign(scope.facts, facts);
};

/** The facts recorded about the request being handled. */
export const requestFacts = (): RequestFacts => requestScope.getStore()?.facts ?? {};

/** Runs `work` outside any request, for background work a request only happened to set off (jobs). */
export const outsideRequest = <T>(work: () => T): T => requestScope.exit(work);

/** The id of the request being handled here, if any. */
export const currentRequestId = (): string | undefined => requestScope.getStore()?.requestId;

function write(level: LineLevel, message: string, fields: Record<string, unknown> = {}) {
  if (levels[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, requestId: currentRequestId(), ...fields });
  if (sink) return sink(line, level);
  (allToStderr || level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
}

/** One JSON line per event, on stdout (stderr for warnings and errors); inside a request, with its `requestId`. */
export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('info', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
};

/**
 * Server faults are logged in full here, and only here: clients get a generic 500. A database fault (the store
 * not answering, its disk full) is the store's, not a bug here: one warning naming it, without a stack.
 */
export const logFault = (error: unknown) => {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const fault = databaseFault(cause);
  if (fault)
    return log.warn(`request failed: ${fault === 'storage_full' ? 'storage full' : 'database unavailable'}`, {
      error: String(root(cause)),
    });
  log.error('request failed', { error: cause instanceof Error ? cause.stack : String(cause) });
};

/** The error at the end of a chain of causes: the store's own, under the answer made of it. */
const root = (error: unknown): unknown => {
  let current = error;
  while (current instanceof Error && current.cause !== undefined) current = current.cause;
  return current;
};
