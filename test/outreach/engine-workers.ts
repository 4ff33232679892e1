/**
 * Sending workers in processes of their own (engine-process.ts) for the process tests of the sending engine, and
 * what those tests share: the workers of a file, killed when it ends, and the SMTP server's errors they cause.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach } from 'vitest';
import type { TickReport } from '../../src/outreach/delivery/engine.ts';
import { testSecretsKey, type TestServer } from '../support/api-server.ts';
import { outreachEnv } from '../support/outreach.ts';
import { projectRoot } from '../support/processes.ts';

// A client killed mid-transaction makes smtp-server emit the reset connection on the server, which the shared
// test SMTP server does not listen for (unheard, it fails the run): kept here, for a test to check it was only that.
export const smtpErrors: Array<string | undefined> = [];
const listen = SMTPServer.prototype.listen;
SMTPServer.prototype.listen = function (this: SMTPServer, ...args: Parameters<typeof listen>) {
  this.on('error', (error: NodeJS.ErrnoException) => void smtpErrors.push(error.code));
  return listen.apply(this, args);
} as typeof listen;

const children: ChildProcessWithoutNullStreams[] = [];
const killChildren = () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
afterEach(killChildren);
afterAll(killChildren);

export type EngineWorker = Awaited<ReturnType<typeof startWorker>>;

/** Starts a worker process on `server`'s database; resolves once it is connected, waiting for `go()` to start its passes. */
export async function startWorker(server: TestServer) {
  const env = { ...process.env, MONGODB_URI: server.databaseUri, SECRETS_KEY: testSecretsKey, ...outreachEnv };
  // The project's Node.js 24, the one running the tests, runs the TypeScript file as it is.
  const child = spawn(process.execPath, ['test/outreach/engine-process.ts'], { cwd: projectRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const lines = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { report?: TickReport; accepted?: string });
  const worker = {
    child,
    stderr: () => stderr,
    exited: new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal!))),
    go: () => void child.stdin.write('go\n'),
    /** Message-IDs of the messages the SMTP server accepted from this process. */
    accepted: () => lines().flatMap((line) => line.accepted ?? []),
    reports: () => lines().flatMap((line) => line.report ?? []),
  };
  await waitFor('the worker process to connect', () => stdout.startsWith('ready\n'), worker);
  return worker;
}

/** Waits (up to 30 s) for `check` to hold, failing at once if the worker exits meanwhile. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  worker: { child: ChildProcessWithoutNullStreams; stderr(): string },
) {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (worker.child.exitCode !== null) throw new Error(`the worker process exited ${worker.child.exitCode}:\n${worker.stderr()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${worker.stderr()}`);
    await sleep(20);
  }
}
