import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach } from 'vitest';
import { freePort, portIsOpen, projectRoot } from '../support/processes.ts';

/** A process as a user sees it: its pid, what it printed, and how it ended. */
export interface Spawned {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** The exit code (or the signal's name), once it has exited. */
  exited: Promise<number | string>;
}

const spawned: Spawned[] = [];

/** Runs `command` in the project folder with the environment plus `env`; killed after the test if still running. */
export function spawnProcess(command: string, args: string[], env: Record<string, string>): Spawned {
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: { ...process.env, HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal!)));
  const process_ = { child, pid: child.pid!, stdout: () => stdout, stderr: () => stderr, exited };
  spawned.push(process_);
  return process_;
}

/** `node src/main.ts <role>` on the project's Node.js 24 (the one running the tests). */
export const startMain = (env: Record<string, string>, role = 'start') => spawnProcess(process.execPath, ['src/main.ts', role], env);

/** Processes a test reached without spawning them (a service's FerretDB): killed after the test if still running. */
const adopted: number[] = [];
export const killAfterTest = (pid: number) => adopted.push(pid);

afterEach(() => {
  for (const { child } of spawned.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const pid of adopted.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
});

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh DATA_DIR, removed after the file's tests. */
export function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'leadops-process-'));
  dataDirs.push(dir);
  return dir;
}

/** Polls `check` until it is true; fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export const healthStatus = (port: number) =>
  fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
    (response) => response.status,
    () => 0,
  );

/**
 * Waits until the service (`start`: API and worker; or `api` alone, with `withWorker` false) answers /healthz 200
 * and its worker has started (it starts once the API listens); fails early with its output if it exits first.
 */
export async function waitForHealthy(service: Spawned, port: number, timeoutMs = 60_000, withWorker = true) {
  await waitFor(
    `/healthz on port ${port}`,
    async () => {
      if (service.child.exitCode !== null) throw new Error(`exited ${service.child.exitCode}:\n${service.stdout()}\n${service.stderr()}`);
      return (!withWorker || service.stdout().includes('worker started')) && (await healthStatus(port)) === 200;
    },
    timeoutMs,
  );
}

/** /proc/<pid>/stat split after the command name (which may hold spaces): [state, ppid, ...]; undefined once gone. */
const stat = (pid: number | string) => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
};

/** True while `pid` runs; a zombie (exited, its parent not told yet) does not: it holds no files. */
export const isRunning = (pid: number) => {
  const state = stat(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
};

const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

/** The first running process `parent` started whose command line mentions `command`, as soon as there is one. */
export async function childOf(parent: number, command: string, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name) && stat(name)?.[1] === String(parent))
      .map(Number)
      .find((pid) => isRunning(pid) && commandLine(pid).includes(command));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${parent} to start ${command}`);
    await sleep(5);
  }
}

/** The embedded FerretDB the owner of `dataDir` runs: its pid and port, and the owner's pid. */
export function embeddedState(dataDir: string): { pid: number; port: number; owner: number } {
  return JSON.parse(readFileSync(join(dataDir, 'ferretdb.json'), 'utf8'));
}

export const lockExists = (dataDir: string) => existsSync(join(dataDir, 'leadops.lock'));

/** Stderr as lines, without npm's own warnings. */
export const lines = (text: string) => text.split('\n').filter((line) => line.trim() && !line.startsWith('npm warn'));

export { freePort, portIsOpen, sleep };
