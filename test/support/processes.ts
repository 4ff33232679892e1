import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to completion in the project folder, with the test's environment and `env` on top; with
 * `inherit: false`, with exactly `env` (plus PATH), so nothing of the test's own environment leaks in; `stdin` is written to
 * its standard input.
 */
export function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  { inherit = true, stdin }: { inherit?: boolean; stdin?: string } = {},
): Promise<Finished> {
  return new Promise((done, fail) => {
    const base = inherit ? process.env : { PATH: process.env.PATH ?? '' };
    const child = spawn(command, args, {
      cwd: projectRoot,
      env: { ...base, ...env },
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (stdin !== undefined) child.stdin!.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

/** A port free on 127.0.0.1, and whether something accepts connections on one: as the embedded store finds them. */
export { canConnect as portIsOpen, freePort } from '../../src/db/child-process.ts';

/** Starts a long-running process and resolves once `url` answers 200 (at once when `url` is null). */
export async function startService(command: string, args: string[], env: Record<string, string>, url: string | null, timeoutMs = 60_000) {
  const child: ChildProcess = spawn(command, args, {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal!)));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${command} exited ${child.exitCode}:\n${output}`);
    const ok =
      url === null ||
      (await fetch(url).then(
        (r) => r.ok,
        () => false,
      ));
    if (ok) {
      return {
        pid: child.pid,
        output: () => output,
        /** Its exit code, or the signal that ended it. */
        exited,
        /** Kills it outright, as a crash would. */
        kill: () => child.kill('SIGKILL'),
        stop: () =>
          new Promise<void>((done) => (child.exitCode !== null ? done() : (child.once('exit', () => done()), child.kill('SIGTERM')))),
      };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`${command} did not answer ${url} within ${timeoutMs} ms:\n${output}`);
}
