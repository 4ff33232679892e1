/**
 * Helpers the benches share about processes: their memory and CPU as Linux
 * reports them in /proc, and the Node.js flags of `npm run worker` for a
 * bench whose process (or child) is the worker.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A memory figure of a process (`self` for this one) from /proc/<pid>/status, in MiB: VmRSS now, VmHWM its peak so far. */
export function statusMiB(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))!;
  return Number(/\d+/.exec(line)![0]) / 1024;
}

/** CPU time (user and system, all threads) a process has used so far, in ms (/proc/<pid>/stat counts 100 ticks a second). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The Node.js flags `npm run worker` starts the worker with (its heap cap), so the figures are the product's. */
export const workerNodeFlags = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.worker as string)
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

/** Runs this bench again with the worker's flags unless it has them (its process runs the worker); returns only in a process that has them. */
export function runWithWorkerFlags(): void {
  if (workerNodeFlags.every((flag) => process.execArgv.includes(flag))) return;
  const run = spawnSync(process.execPath, [...process.execArgv, ...workerNodeFlags, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
