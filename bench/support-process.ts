/**
 * Helpers the benches share about processes: their memory and CPU as Linux
 * reports them in /proc, and the Node.js flags of the npm scripts for a
 * bench whose process (or child) runs a role of the service.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** A memory figure of a process (`self` for this one) from /proc/<pid>/status, in MiB: VmRSS now, VmHWM its peak so far. */
export const statusMiB = (pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number =>
  statusFieldMiB(readFileSync(`/proc/${pid}/status`, 'utf8'), field);

/** A figure of a /proc/<pid>/status text, in MiB; 0 when it has none (a process exiting has no memory left to tell). */
const statusFieldMiB = (status: string, field: 'VmRSS' | 'VmHWM') =>
  Number(/\d+/.exec(status.split('\n').find((line) => line.startsWith(`${field}:`)) ?? '0')![0]) / 1024;

/** The RSS of the processes below `pid` (its children, theirs, …) running now, summed, in MiB: a browser's, say. */
export function descendantsRssMiB(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const stat = readOrNull(`/proc/${entry}/stat`);
    if (stat === null) continue; // it ended meanwhile
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  let total = 0;
  for (let queue = [...(children.get(pid) ?? [])]; queue.length;) {
    const next = queue.shift()!;
    total += statusFieldMiB(readOrNull(`/proc/${next}/status`) ?? '', 'VmRSS');
    queue.push(...(children.get(next) ?? []));
  }
  return total;
}

const readOrNull = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** CPU time (user and system, all threads) a process has used so far, in ms (/proc/<pid>/stat counts 100 ticks a second). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The Node.js flags an npm script (`start`, `api`, `worker`) runs its role with (heap caps), so the figures are the product's. */
export const scriptNodeFlags = (script: 'start' | 'api' | 'worker') =>
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts[script] as string)
    .split(/\s+/)
    .filter((word) => word.startsWith('--'));

/** The flags of `npm run worker`. */
export const workerNodeFlags = scriptNodeFlags('worker');

/** Runs this bench again with the worker's flags unless it has them (its process runs the worker); returns only in a process that has them. */
export function runWithWorkerFlags(): void {
  if (workerNodeFlags.every((flag) => process.execArgv.includes(flag))) return;
  const run = spawnSync(process.execPath, [...process.execArgv, ...workerNodeFlags, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
