import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { freePort, waitForPort } from '../../src/db/child-process.ts';
import { ferretDbArgs } from '../../src/db/embedded-ferretdb.ts';
import { ensureFerretDbBinary } from '../../src/db/ferretdb-binary.ts';

export interface SyncCountingFerretDb {
  /** mongodb://host:port of this FerretDB (no database). */
  server: string;
  /** The fsync and fdatasync calls FerretDB has made so far. */
  syncs(): number;
}

/**
 * A FerretDB of the test file's own, started as the service starts it, under strace counting its fsync and
 * fdatasync calls (each appears in strace's output as it is made). Its SQLite never checkpoints on its own
 * (`wal_autocheckpoint(0)`): a checkpoint syncs the log and the database, so with it off every sync counted is a
 * journaled write's.
 */
export function useSyncCountingFerretDb(): SyncCountingFerretDb {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadops-syncs-'));
  const trace = join(dataDir, 'strace.out');
  const state = { server: '' } as SyncCountingFerretDb;
  let strace: ChildProcess | undefined;
  state.syncs = () => readFileSync(trace, 'utf8').match(/\bf(?:data)?sync\(/g)?.length ?? 0;
  beforeAll(async () => {
    const port = await freePort();
    const args = ferretDbArgs(port, dataDir).map((arg) => (arg.startsWith('file:') ? `${arg}&_pragma=wal_autocheckpoint(0)` : arg));
    // -f: FerretDB's threads; --seccomp-bpf: only the traced calls stop it.
    const straceArgs = ['-f', '--seccomp-bpf', '-e', 'trace=fsync,fdatasync', '-o', trace];
    strace = spawn('strace', [...straceArgs, ensureFerretDbBinary(() => {}), ...args], { stdio: ['pipe', 'ignore', 'inherit'] });
    await waitForPort(port, strace, 30_000);
    state.server = `mongodb://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    if (strace && strace.exitCode === null) {
      // FerretDB stops when its standard input closes (strace ignores SIGTERM while it traces a program it started).
      const exited = once(strace, 'exit');
      strace.stdin!.end();
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  return state;
}
