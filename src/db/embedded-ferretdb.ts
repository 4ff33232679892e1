import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join, resolve } from 'node:path';
import { ensureFerretDbBinary } from './ferretdb-binary.ts';

export interface EmbeddedDatabase {
  uri: string;
  stop(): Promise<void>;
}

interface Options {
  dataDir: string;
  binary?: string;
  log: (line: string) => void;
}

const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

const canConnect = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`FerretDB exited with code ${child.exitCode} before listening`);
    if (await canConnect(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`FerretDB did not listen on port ${port} within ${timeoutMs} ms`);
}

/**
 * Starts FerretDB as a child process, or joins the one another process of
 * this project already runs on the same data directory (its port is kept
 * in `<dataDir>/ferretdb.json`), so the CLI works beside a running service.
 */
export async function startEmbeddedFerretDb(options: Options): Promise<EmbeddedDatabase> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const stateFile = join(dataDir, 'ferretdb.json');
  if (existsSync(stateFile)) {
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { pid: number; port: number };
    if (isAlive(state.pid) && (await canConnect(state.port))) {
      return { uri: `mongodb://127.0.0.1:${state.port}/leadops`, stop: async () => {} };
    }
  }

  const binary = ensureFerretDbBinary(options.log, options.binary);
  const port = await freePort();
  const args = ['--listen-addr', `127.0.0.1:${port}`, '--exit-on-stdin-eof', '--log-level', 'error', '--handler', 'sqlite', '--sqlite-url', `file:${dataDir}/`];
  // stdin is a pipe only so that FerretDB stops when this process dies.
  const child = spawn(binary, args, { stdio: ['pipe', 'ignore', 'inherit'] });
  await waitForPort(port, child, 30_000);
  writeFileSync(stateFile, JSON.stringify({ pid: child.pid, port }));

  return {
    uri: `mongodb://127.0.0.1:${port}/leadops`,
    stop: async () => {
      rmSync(stateFile, { force: true });
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
