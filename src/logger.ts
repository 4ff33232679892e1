const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = keyof typeof levels;

let threshold: number = levels.info;

let allToStderr = false;

export const setLogLevel = (level: Level) => {
  threshold = levels[level];
};

/** For the CLI, whose stdout carries only its JSON result. */
export const logToStderr = () => {
  allToStderr = true;
};

function write(level: Exclude<Level, 'silent'>, message: string, fields: Record<string, unknown> = {}) {
  if (levels[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields });
  (allToStderr || level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
}

/** One JSON line per event, on stdout (stderr for warnings and errors). */
export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('info', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
};

/** Server faults are logged in full here, and only here: clients get a generic 500. */
export const logFault = (error: unknown) => {
  const cause = (error as { cause?: unknown }).cause ?? error;
  log.error('request failed', { error: cause instanceof Error ? cause.stack : String(cause) });
};
