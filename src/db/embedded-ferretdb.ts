import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lockDataDir, processRuns, type DataDirLock, type LockHolder } from './data-dir-lock.ts';
import { canConnect, exitsWithin, exitsWithinSync, freePort, stopGraceMs, terminate, waitForPort } from './child-process.ts';
import { ensureFerretDbBinary } from './ferretdb-binary.ts';

export interface EmbeddedDatabase {
  uri: string;
  stop(): Promise<void>;
}

interface Options {
  dataDir: string;
  binary?: string;
  log: (line: string) => void;
  /** What this process is, recorded in the folder's lock and named to a process refused: `start`, `api`, `worker`, `cli`. */
  role?: string;
  /** Join the FerretDB a running service owns instead of refusing (the CLI, and the split roles `api` and `worker`). */
  join?: boolean;
  /** Called once if the FerretDB this process uses exits while still in use: its own, or the one it joined. */
  onExit?: (reason: string) => void;
}

/** The service's database; FerretDB keeps it in `<dataDir>/<name>.sqlite`. */
const databaseName = 'leadops';

/** True once `dataDir` holds the service's database (a service has started on it). */
export const holdsEmbeddedDatabase = (dataDir: string) => existsSync(join(dataDir, `${databaseName}.sqlite`));

/** How long a process waits for a CLI command holding the folder (a second or two) to finish. */
const cliWaitMs = 30_000;

/** `<dataDir>/ferretdb.json`: FerretDB's pid from its spawn on, for a takeover to stop it; its port only while joiners may use it. */
interface State {
  pid: number;
  port?: number;
  owner: number;
}

const roleNames: Record<string, string> = {
  start: 'a running service (`start`)',
  api: 'a running API (`api`)',
  worker: 'a running job worker (`worker`)',
  cli: 'an admin CLI command',
};
const describe = (holder: LockHolder) =>
  `${roleNames[holder.role] ?? `a process (${holder.role})`}, pid ${holder.pid}, since ${holder.since}`;

const inUse = (dataDir: string, holder: LockHolder) =>
  new Error(
    `DATA_DIR ${dataDir} is in use by ${describe(holder)}: \`start\` runs alone on its embedded database. ` +
      'Stop that process, set DATA_DIR to another folder, or run the roles apart (`npm run api`, `npm run worker`), which share one.',
  );

const notServing = (dataDir: string, holder: LockHolder) =>
  new Error(
    `DATA_DIR ${dataDir} belongs to ${describe(holder)}, whose database did not answer within ${cliWaitMs / 1000} s: try again once it serves.`,
  );

/** FerretDB's last error line without its timestamp, Go call frames and wrapping: the SQLite message. */
const lastError = (stderr: string) =>
  (stderr.trim().split('\n').at(-1) ?? '')
    .replace(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /, '')
    .replace(/\[[^\]]*\] /g, '')
    .replace(/^failed to construct handler: /, '');

/** Errors FerretDB gives when a database file is not one it can open: left half-made by an interrupted first start. */
const damage = /no such table: _ferretdb_|file is not a database|malformed/;

function startFailure(dataDir: string, stderr: string, cause: Error): Error {
  const reason = lastError(stderr) || cause.message;
  if (!damage.test(stderr)) return new Error(`The embedded database did not start: ${reason}`);
  const files = readdirSync(dataDir)
    .filter((name) => name.endsWith('.sqlite'))
    .map((name) => join(dataDir, name));
  return new Error(
    `The embedded database in ${dataDir} is damaged (${reason}): stop every process using this DATA_DIR, then move ` +
      `${files.join(', ')} and its -wal and -shm files aside (the service then starts empty), or restore them from a backup.`,
  );
}

/**
 * FerretDB's SQLite files in `dataDir`. SQLite runs in WAL mode (FerretDB's default); synchronous=NORMAL
 * syncs the log at checkpoints rather than at every commit: a write acknowledged survives a crash of any
 * process, and a power loss may take the writes the kernel had not written back (up to ~35 s of them with Linux's
 * defaults) but never leaves the files inconsistent. A write with `j: true` (src/db/journaled.ts) is acknowledged
 * once the log is synced (tools/ferretdb/README.md, "Durability").
 * temp_store=MEMORY keeps a statement's undo journal in memory: by default one past 64 KiB (a batched update's)
 * went to a temporary file, created, written and removed in that statement's transaction.
 */
const sqliteUrl = (dataDir: string) => `file:${dataDir}/?_pragma=synchronous(normal)&_pragma=temp_store(memory)`;

/** FerretDB's command line: on 127.0.0.1:`port`, SQLite files in `dataDir`, stopping when its standard input closes. */
export const ferretDbArgs = (port: number, dataDir: string) => [
  '--listen-addr',
  `127.0.0.1:${port}`,
  '--exit-on-stdin-eof',
  '--log-level',
  'error',
  '--handler',
  'sqlite',
  '--sqlite-url',
  sqliteUrl(dataDir),
];

/**
 * Starts the FerretDB binary on a free port; tries another port if one was taken between the probe and the bind.
 * `spawned` learns of each child as it starts, so that this process can stop it however it ends.
 */
async function launch(
  binary: string,
  dataDir: string,
  spawned: (child: ChildProcess) => void,
): Promise<{ child: ChildProcess; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = ferretDbArgs(port, dataDir);
    // stdin is a pipe so that FerretDB stops when this process is killed outright (nothing of ours runs then). Its own
    // process group keeps a terminal's Ctrl-C from stopping it before this process has stopped using it.
    const child = spawn(binary, args, { stdio: ['pipe', 'ignore', 'pipe'], detached: true });
    spawned(child);
    let stderr = '';
    const collect = (chunk: Buffer) => (stderr += chunk);
    child.stderr!.on('data', collect);
    try {
      await waitForPort(port, child, 30_000);
    } catch (error) {
      child.kill('SIGKILL');
      if (!(await exitsWithin(child.pid!, stopGraceMs))) throw new Error(`FerretDB (pid ${child.pid}) did not stop after failing to start`);
      if (/address already in use/.test(stderr) && attempt < 3) continue;
      throw startFailure(dataDir, stderr, error as Error);
    }
    // Kept until it listens, so a failed start is one line; from then on its errors go to our stderr as they come.
    child.stderr!.off('data', collect);
    child.stderr!.pipe(process.stderr, { end: false });
    return { child, port };
  }
}

const readState = (stateFile: string): State | undefined => {
  try {
    return JSON.parse(readFileSync(stateFile, 'utf8')) as State;
  } catch {
    return undefined;
  }
};

/** How often a process that joined another's FerretDB checks that it still serves. */
const ownerCheckMs = 500;

/**
 * The FerretDB a running service owns, if it already answers. With `onExit`, watched: once the
 * owner has stopped it (or died), `onExit` says so, for the joined process to exit too.
 */
async function joinOwner(stateFile: string, holder: LockHolder, onExit?: (reason: string) => void): Promise<EmbeddedDatabase | undefined> {
  const state = readState(stateFile);
  if (state?.owner !== holder.pid || typeof state.port !== 'number' || !(await canConnect(state.port))) return undefined;
  const { port } = state;
  let watching: NodeJS.Timeout | undefined;
  if (onExit) {
    const check = async () => {
      const serves = processRuns(state.pid) && readState(stateFile)?.port === port && (await canConnect(port));
      if (!watching) return;
      if (serves) watching = setTimeout(check, ownerCheckMs).unref();
      else onExit(`the embedded database this process joined (FerretDB pid ${state.pid}, started by ${describe(holder)}) stopped`);
    };
    watching = setTimeout(check, ownerCheckMs).unref();
  }
  return {
    uri: `mongodb://127.0.0.1:${port}/${databaseName}`,
    stop: async () => {
      clearTimeout(watching);
      watching = undefined;
    },
  };
}

/** True if `pid` runs FerretDB on `dataDir` (its arguments name the folder): after a restart the pid may be another's. */
function servesFolder(pid: number, dataDir: string): boolean {
  if (!processRuns(pid)) return false;
  try {
    // Its SQLite URL names the folder, whatever options follow (an earlier version may have started it).
    const folder = `file:${dataDir}/`;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .some((arg) => arg === folder || arg.startsWith(`${folder}?`));
  } catch {
    return !existsSync('/proc/self/cmdline'); // off Linux the pid is all there is to go by
  }
}

/**
 * Stops the FerretDB that a process which died holding the folder left running (ferretdb.json names it) before
 * another opens the same files: it stops by itself once it sees its standard input close, but not if it hangs.
 */
async function stopLeftover(dataDir: string, stateFile: string) {
  const pid = readState(stateFile)?.pid;
  if (pid !== undefined && servesFolder(pid, dataDir) && !(await terminate(pid))) {
    throw new Error(`FerretDB (pid ${pid}), left running on ${dataDir} by a process that died, does not stop: end it, then start again.`);
  }
  rmSync(stateFile, { force: true });
}

async function startOwned(dataDir: string, stateFile: string, options: Options, lock: DataDirLock): Promise<EmbeddedDatabase> {
  let child: ChildProcess | undefined;
  const writeState = (port?: number) =>
    writeFileSync(stateFile, JSON.stringify({ pid: child!.pid!, port, owner: process.pid } satisfies State));
  // The folder is freed only once this process's FerretDB no longer runs: another process may then open the files.
  const release = () => {
    if (child) {
      if (processRuns(child.pid!)) return;
      rmSync(stateFile, { force: true });
    }
    process.off('exit', onExit);
    lock.release();
  };
  // However this process ends (process.exit on a lost database, a crash, a signal while starting), FerretDB goes
  // first. Nothing asynchronous runs on 'exit', so it is killed outright and waited for blocking.
  const onExit = () => {
    if (child && processRuns(child.pid!)) {
      child.kill('SIGKILL');
      exitsWithinSync(child.pid!, 2_000);
    }
    release();
  };
  process.on('exit', onExit);

  let port: number;
  try {
    await stopLeftover(dataDir, stateFile);
    const binary = ensureFerretDbBinary(options.log, options.binary);
    ({ port } = await launch(binary, dataDir, (spawned) => {
      child = spawned;
      writeState();
    }));
  } catch (error) {
    release();
    throw error;
  }
  const ferretDb = child!;
  writeState(port);

  let stopping = false;
  ferretDb.once('exit', (code, signal) => {
    if (stopping) return;
    rmSync(stateFile, { force: true });
    options.onExit?.(`FerretDB (pid ${ferretDb.pid}) exited ${signal ? `on ${signal}` : `with code ${code}`}`);
  });
  return {
    uri: `mongodb://127.0.0.1:${port}/${databaseName}`,
    stop: async () => {
      stopping = true;
      if (processRuns(ferretDb.pid!)) {
        writeState(); // without the port: no CLI joins a FerretDB that is stopping
        if (!(await terminate(ferretDb.pid!))) throw new Error(`FerretDB (pid ${ferretDb.pid}) does not stop: ${dataDir} stays locked`);
      }
      release();
    },
  };
}

/**
 * Starts FerretDB as a child process on SQLite files in `dataDir`, which
 * then belongs to this process (`<dataDir>/leadops.lock`, which one
 * process creates, so two starts racing on a fresh folder cannot both set it
 * up) until FerretDB has stopped. A folder a running service holds is
 * refused with one line naming it, or, with `join` (the CLI, `api` and
 * `worker`), used through that service's FerretDB, whose port is in
 * `<dataDir>/ferretdb.json`. A CLI command holding the folder is waited for.
 */
export async function startEmbeddedFerretDb(options: Options): Promise<EmbeddedDatabase> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const stateFile = join(dataDir, 'ferretdb.json');
  const deadline = Date.now() + cliWaitMs;
  for (;;) {
    const taken = await lockDataDir(dataDir, options.role ?? 'embedded');
    if ('lock' in taken) return startOwned(dataDir, stateFile, options, taken.lock);
    const { holder } = taken;
    if (holder.role !== 'cli') {
      if (!options.join) throw inUse(dataDir, holder);
      const joined = await joinOwner(stateFile, holder, options.onExit);
      if (joined) return joined;
      // The service is still starting its FerretDB.
    }
    if (Date.now() > deadline) throw options.join && holder.role !== 'cli' ? notServing(dataDir, holder) : inUse(dataDir, holder);
    await sleep(100);
  }
}
