import type { ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { processRuns } from './data-dir-lock.ts';

/** How long a process has to stop on SIGTERM before it is killed. */
export const stopGraceMs = 5_000;

export const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

export const canConnect = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

export async function waitForPort(port: number, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the process exited with code ${child.exitCode ?? child.signalCode} before listening`);
    if (await canConnect(port)) return;
    await sleep(50);
  }
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
}

/** Polls until `pid` has exited; false if it still runs after `ms`. */
export async function exitsWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processRuns(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/** The same, blocking: for process 'exit', where nothing asynchronous runs any more. */
export function exitsWithinSync(pid: number, ms: number): boolean {
  const deadline = Date.now() + ms;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (processRuns(pid)) {
    if (Date.now() > deadline) return false;
    Atomics.wait(pause, 0, 0, 5);
  }
  return true;
}

export const signal = (pid: number, name: NodeJS.Signals) => {
  try {
    process.kill(pid, name);
  } catch {
    // exited already
  }
};

/** Stops `pid`: SIGTERM, then SIGKILL if it still runs after stopGraceMs. False if even that did not end it. */
export async function terminate(pid: number): Promise<boolean> {
  signal(pid, 'SIGTERM');
  if (await exitsWithin(pid, stopGraceMs)) return true;
  signal(pid, 'SIGKILL');
  return exitsWithin(pid, stopGraceMs);
}
