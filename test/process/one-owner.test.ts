import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/processes.ts';
import {
  embeddedState,
  freePort,
  isRunning,
  lines,
  lockExists,
  portIsOpen,
  spawnProcess,
  startMain,
  tempDataDir,
  waitFor,
  waitForHealthy,
} from './service.ts';

const cli = (dataDir: string, ...args: string[]) => {
  const run = spawnProcess(process.execPath, ['src/cli/main.ts', ...args], { DATA_DIR: dataDir });
  return run.exited.then((code) => ({ code, stdout: run.stdout(), stderr: run.stderr() }));
};

/** The embedded database (FerretDB on SQLite files in DATA_DIR) belongs to one service process at a time. */
describe('one process per embedded database', () => {
  /** A lock naming this test's own pid, alive, but with another start time: the process that wrote it is dead. */
  const writeDeadLock = (dataDir: string) =>
    writeFileSync(
      join(dataDir, 'leadops.lock'),
      JSON.stringify({ pid: process.pid, role: 'start', since: '2020-01-01T00:00:00.000Z', startTime: '1' }),
    );

  it('refuses a second start on the same DATA_DIR, on the same port or another, with one line naming the first', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    const first = startMain({ DATA_DIR: dataDir, PORT: String(port) });
    await waitForHealthy(first, port);

    for (const secondPort of [port, await freePort()]) {
      const second = startMain({ DATA_DIR: dataDir, PORT: String(secondPort) });
      expect(await second.exited).toBe(1);
      expect(lines(second.stderr())).toEqual([expect.stringContaining(`pid ${first.pid}`)]);
      expect(second.stderr()).toContain(dataDir);
      expect(second.stdout()).not.toContain('listening');
    }
    expect(await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status)).toBe(200);
  }, 60_000);

  it('lets the CLI join a running service, and work alone once it stops', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    const service = startMain({ DATA_DIR: dataDir, PORT: String(port) });
    await waitForHealthy(service, port);
    const ferretDb = embeddedState(dataDir).pid;

    const created = await cli(dataDir, 'workspace', 'create', '--name', 'Beside', '--plan', 'free', '--email', 'b@x.test');
    expect(created.code).toBe(0);
    const { workspaceId } = JSON.parse(created.stdout);
    // Joining left the service's database running.
    expect(isRunning(ferretDb)).toBe(true);
    expect(await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status)).toBe(200);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    const shown = await cli(dataDir, 'workspace', 'show', '--id', workspaceId);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ workspaceId, plan: 'free' });
    expect(lockExists(dataDir)).toBe(false);

    // The CLI alone left the folder free for the next start.
    const again = startMain({ DATA_DIR: dataDir, PORT: String(port) });
    await waitForHealthy(again, port);
  }, 90_000);

  it('lets a CLI command and a start arriving together on a fresh DATA_DIR both succeed', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    // Whichever takes the folder first, the other waits for it (a start for the CLI command) or joins it (the CLI).
    const command = cli(dataDir, 'workspace', 'create', '--name', 'Together', '--plan', 'free', '--email', 't@x.test');
    const service = startMain({ DATA_DIR: dataDir, PORT: String(port) });
    expect((await command).code).toBe(0);
    await waitForHealthy(service, port);
  }, 60_000);

  it('lets exactly one of two starts racing on a fresh DATA_DIR serve, and leaves the folder usable', async () => {
    for (let round = 0; round < 2; round++) {
      const dataDir = tempDataDir();
      const ports = [await freePort(), await freePort()];
      const racers = ports.map((port) => startMain({ DATA_DIR: dataDir, PORT: String(port) }));
      const loser = await Promise.race(racers.map((racer) => racer.exited.then(() => racer)));
      const winner = racers.find((racer) => racer !== loser)!;
      expect(await loser.exited).toBe(1);
      expect(lines(loser.stderr())).toEqual([expect.stringContaining(`pid ${winner.pid}`)]);
      await waitForHealthy(winner, ports[racers.indexOf(winner)]!);

      winner.child.kill('SIGTERM');
      expect(await winner.exited).toBe(0);
      const next = startMain({ DATA_DIR: dataDir, PORT: String(ports[0]) });
      await waitForHealthy(next, ports[0]!);
      next.child.kill('SIGTERM');
      await next.exited;
    }
  }, 120_000);

  it('takes over the folder of a service that was killed, whose FerretDB went with it, once', async () => {
    const dataDir = tempDataDir();
    const ports = [await freePort(), await freePort()];
    const killed = startMain({ DATA_DIR: dataDir, PORT: String(ports[0]) });
    await waitForHealthy(killed, ports[0]!);
    const ferretDb = embeddedState(dataDir).pid;
    killed.child.kill('SIGKILL');
    await killed.exited;
    // FerretDB stops when its standard input (a pipe from the service) closes.
    await waitFor('FerretDB to stop', () => !isRunning(ferretDb), 10_000);
    expect(lockExists(dataDir)).toBe(true);

    // Two starts find the dead process's lock at once: one takes the folder over, the other is refused.
    const racers = ports.map((port) => startMain({ DATA_DIR: dataDir, PORT: String(port) }));
    const loser = await Promise.race(racers.map((racer) => racer.exited.then(() => racer)));
    const winner = racers.find((racer) => racer !== loser)!;
    expect(lines(loser.stderr())).toEqual([expect.stringContaining(`pid ${winner.pid}`)]);
    await waitForHealthy(winner, ports[racers.indexOf(winner)]!);
    expect(embeddedState(dataDir).owner).toBe(winner.pid);
  }, 60_000);

  it('takes over a lock whose pid now belongs to another process, as after a container restart', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    writeDeadLock(dataDir);
    const service = startMain({ DATA_DIR: dataDir, PORT: String(port) });
    await waitForHealthy(service, port);
  }, 60_000);

  it('stops the FerretDB a dead owner left running on the folder, a hung one by SIGKILL, before starting its own', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    const leftoverPort = await freePort();
    const leftover = spawnProcess(
      join(projectRoot, '.tools/bin/ferretdb'),
      ['--listen-addr', `127.0.0.1:${leftoverPort}`, '--log-level', 'error', '--handler', 'sqlite', '--sqlite-url', `file:${dataDir}/`],
      {},
    );
    await waitFor('the leftover FerretDB to listen', () => portIsOpen(leftoverPort), 15_000);
    // What an owner killed outright leaves when its FerretDB hangs: its lock, and a FerretDB that never sees its stdin close.
    process.kill(leftover.pid, 'SIGSTOP');
    writeDeadLock(dataDir);
    writeFileSync(join(dataDir, 'ferretdb.json'), JSON.stringify({ pid: leftover.pid, port: leftoverPort, owner: process.pid }));

    const service = startMain({ DATA_DIR: dataDir, PORT: String(port) });
    await waitForHealthy(service, port);
    expect(isRunning(leftover.pid)).toBe(false);
    expect(await leftover.exited).toBe('SIGKILL');
    const state = embeddedState(dataDir);
    expect(state.owner).toBe(service.pid);
    expect(state.pid).not.toBe(leftover.pid);
  }, 60_000);

  it('leaves alone a live process that has the pid ferretdb.json names but is no FerretDB of this folder', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    const other = spawnProcess('sleep', ['60'], {});
    writeDeadLock(dataDir);
    writeFileSync(join(dataDir, 'ferretdb.json'), JSON.stringify({ pid: other.pid, port: 1, owner: process.pid }));

    const service = startMain({ DATA_DIR: dataDir, PORT: String(port) });
    await waitForHealthy(service, port);
    expect(isRunning(other.pid)).toBe(true);
  }, 60_000);

  it('reports a damaged database folder with what to do', async () => {
    const dataDir = tempDataDir();
    // What an interrupted first start can leave: a database file without FerretDB's tables.
    writeFileSync(join(dataDir, 'leadops.sqlite'), '');
    const service = startMain({ DATA_DIR: dataDir, PORT: String(await freePort()) });
    expect(await service.exited).toBe(1);
    const [line, ...rest] = lines(service.stderr());
    expect(rest).toEqual([]);
    expect(line).toMatch(/damaged/);
    expect(line).toContain(join(dataDir, 'leadops.sqlite'));
    expect(line).toMatch(/move|delete/);
    expect(lockExists(dataDir)).toBe(false);
  }, 30_000);
});
