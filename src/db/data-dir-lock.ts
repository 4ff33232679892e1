import { createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Who holds a data directory: the lock file's content. */
export interface LockHolder {
  pid: number;
  /** What the process is: `start`, `api`, `worker`, `cli`, ... */
  role: string;
  since: string;
  /** The process's start time as the system counts it (Linux), which tells a live owner from a new process given its pid. */
  startTime?: string;
}

export interface DataDirLock {
  /** Removes the lock if it still is this process's. The caller releases it on every exit path, once nothing uses the folder. */
  release(): void;
}

const lockName = 'leadops.lock';
const procfs = existsSync('/proc/self/stat');

/** /proc/<pid>/stat from field 3 (the state) on; the command name before it may hold spaces and parentheses. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * True while process `pid` runs. A zombie does not: it has exited and closed its files. With `startTime`, only if
 * it is that very process: a restarted container gives its first process the same small pid as the one that died.
 */
export function processRuns(pid: number, startTime?: string): boolean {
  // 0 and negative pids name process groups to kill().
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!procfs) return true; // off Linux the pid is all there is to go by
  const fields = statFields(pid);
  return fields !== undefined && fields[0] !== 'Z' && fields[0] !== 'X' && (!startTime || fields[19] === startTime);
}

const parse = (text: string): LockHolder | undefined => {
  try {
    const holder = JSON.parse(text) as LockHolder;
    return typeof holder.pid === 'number' ? holder : undefined;
  } catch {
    return undefined;
  }
};

/** A record no running process stands behind: its lock is taken over. Unreadable text counts (no process of ours writes it). */
function isDead(text: string): boolean {
  const holder = parse(text);
  // Our own pid without a start time (off Linux) in a lock we did not take: a process before us had it.
  if (!holder || (holder.pid === process.pid && !holder.startTime)) return true;
  return !processRuns(holder.pid, holder.startTime);
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** Links `file` at `path` unless something is there: a file that appears there has its content from the start. */
function linkNew(file: string, path: string): boolean {
  try {
    linkSync(file, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Puts `mine` (this process's record) at `path` in place of `dead`, the record of a dead process read there,
 * unless another process does first. The right to replace that very text is a claim file named after it, created
 * by linking like the lock, so one process has it; it renames the claim over `path` once it has seen `path` still
 * hold `dead`, and nothing else changes a dead holder's file. A claim whose maker died is replaced the same way,
 * one name further. False when another process got there first, or is at it: the caller looks again.
 */
function replaceDead(path: string, dead: string, mine: string): boolean {
  const claim = `${path}.${createHash('sha256').update(dead).digest('hex').slice(0, 16)}`;
  if (!linkNew(mine, claim)) {
    const other = read(claim);
    if (other === undefined || !isDead(other) || !replaceDead(claim, other, mine)) return false;
  }
  if (read(path) !== dead) {
    rmSync(claim, { force: true }); // ours: the lock moved on meanwhile
    return false;
  }
  renameSync(claim, path);
  return true;
}

/**
 * Takes the data directory for this process. Its lock file is linked into place from a file already holding this
 * process's pid and start time, so it never exists without its content, and only one process creates it; the lock
 * of a dead process is replaced by one process (replaceDead). Answers the holder when a running process has it.
 */
export async function lockDataDir(dataDir: string, role: string): Promise<{ lock: DataDirLock } | { holder: LockHolder }> {
  const path = join(dataDir, lockName);
  const record = JSON.stringify({ pid: process.pid, role, since: new Date().toISOString(), startTime: statFields(process.pid)?.[19] });
  const mine = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(mine, record);
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (linkNew(mine, path)) return { lock: ownedLock(path, record) };
      const found = read(path);
      if (found === undefined) continue; // released meanwhile
      if (!isDead(found)) return { holder: parse(found)! };
      if (replaceDead(path, found, mine)) return { lock: ownedLock(path, record) };
      await sleep(20); // another process is replacing it, which takes a moment
    }
  } finally {
    rmSync(mine, { force: true });
  }
  throw new Error(`Could not take ${path}: remove it and the ${lockName}.* files beside it if no process of this project uses ${dataDir}`);
}

const ownedLock = (path: string, record: string): DataDirLock => ({
  release: () => {
    // Only while it is ours: no other process replaces the lock of a running one, so it stays ours until removed.
    if (read(path) === record) rmSync(path, { force: true });
  },
});
