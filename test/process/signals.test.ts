import { describe, expect, it } from 'vitest';
import {
  childOf,
  embeddedState,
  freePort,
  isRunning,
  killAfterTest,
  lockExists,
  portIsOpen,
  spawnProcess,
  startMain,
  tempDataDir,
  waitFor,
  waitForHealthy,
} from './service.ts';

/** What a user (or a supervisor) stops is the npm process `npm start` runs as; everything under it must go too. */
describe('stopping npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to the npm process stops the service and its FerretDB',
    async (signal) => {
      const dataDir = tempDataDir();
      const port = await freePort();
      const npm = spawnProcess('npm', ['start'], { DATA_DIR: dataDir, PORT: String(port) });
      await waitForHealthy(npm, port);
      const { pid: ferretDb, port: ferretDbPort, owner: node } = embeddedState(dataDir);
      expect(node).not.toBe(npm.pid);

      npm.child.kill(signal);
      await npm.exited;
      await waitFor('node and FerretDB to stop', () => !isRunning(node) && !isRunning(ferretDb), 15_000);
      expect(await portIsOpen(port)).toBe(false);
      expect(await portIsOpen(ferretDbPort)).toBe(false);
      expect(lockExists(dataDir)).toBe(false);
    },
    60_000,
  );

  it('SIGTERM while the service starts kills its FerretDB, even a hung one, before the folder is free', async () => {
    const dataDir = tempDataDir();
    const service = startMain({ DATA_DIR: dataDir, PORT: String(await freePort()) });
    const ferretDb = await childOf(service.pid, 'ferretdb');
    killAfterTest(ferretDb);
    // Hung: it neither answers the service nor notices its standard input close when the service exits.
    process.kill(ferretDb, 'SIGSTOP');
    expect(service.stdout()).not.toContain('database connected');

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    // Both at once, as a supervisor restarting the service would find them: the folder is free only with FerretDB gone.
    expect({ ferretDbRunning: isRunning(ferretDb), locked: lockExists(dataDir) }).toEqual({ ferretDbRunning: false, locked: false });
  }, 60_000);
});
