import { createHash } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnProcess, tempDataDir } from './service.ts';

const racers = 6;

/** Starts `racers` processes taking the folder's lock at the same instant: exactly one gets it, each other names it. */
async function race(dataDir: string) {
  const startAt = Date.now() + 2_000; // time for every racer's Node.js to start on a 2-core machine
  const runs = Array.from({ length: racers }, () =>
    spawnProcess(process.execPath, ['test/process/lock-racer.ts', dataDir, String(startAt), '1500'], {}),
  );
  await Promise.all(runs.map((run) => run.exited));
  const outcomes = runs.map((run) => `${run.stdout().trim()}${run.stderr().trim()}`);
  const winner = runs[outcomes.indexOf('lock')];
  expect(winner, outcomes.join('\n')).toBeDefined();
  expect(outcomes.toSorted()).toEqual(['lock', ...Array(racers - 1).fill(`holder ${winner!.pid}`)].toSorted());
  // Released, and no file of the protocol left beside it.
  expect(readdirSync(dataDir)).toEqual([]);
}

/** A lock record of a process that is dead: this test's pid, with a start time it does not have. */
const deadRecord = (role: string) => JSON.stringify({ pid: process.pid, role, since: '2020-01-01T00:00:00.000Z', startTime: '1' });

describe('the data directory lock', () => {
  it('goes to exactly one of several processes racing on a fresh folder', () => race(tempDataDir()), 30_000);

  it('is taken over from a dead process by exactly one of several racing', async () => {
    const dataDir = tempDataDir();
    writeFileSync(join(dataDir, 'leadops.lock'), deadRecord('start'));
    await race(dataDir);
  }, 30_000);

  it('is taken over by exactly one when the lock file is unreadable', async () => {
    const dataDir = tempDataDir();
    writeFileSync(join(dataDir, 'leadops.lock'), '');
    await race(dataDir);
  }, 30_000);

  it('is taken over by exactly one when a process died while taking over a dead lock', async () => {
    const dataDir = tempDataDir();
    const dead = deadRecord('start');
    writeFileSync(join(dataDir, 'leadops.lock'), dead);
    // The claim data-dir-lock.ts makes to replace that very lock (named after its content), left by a taker that died.
    const claim = `leadops.lock.${createHash('sha256').update(dead).digest('hex').slice(0, 16)}`;
    writeFileSync(join(dataDir, claim), deadRecord('cli'));
    await race(dataDir);
  }, 30_000);
});
