import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testSecretsKey } from '../support/api-server.ts';
import { projectRoot } from '../support/processes.ts';
import {
  embeddedState,
  freePort,
  healthStatus,
  isRunning,
  lines,
  lockExists,
  portIsOpen,
  sleep,
  spawnProcess,
  startMain,
  tempDataDir,
  waitFor,
  waitForHealthy,
} from './service.ts';

/** A FerretDB of the test's own on a known port, standing in for a MongoDB server the service reaches over MONGODB_URI. */
const startStore = async (dataDir: string, port: number) => {
  const store = spawnProcess(
    join(projectRoot, '.tools/bin/ferretdb'),
    ['--listen-addr', `127.0.0.1:${port}`, '--log-level', 'error', '--handler', 'sqlite', '--sqlite-url', `file:${dataDir}/`],
    {},
  );
  await waitFor('the store to listen', () => portIsOpen(port), 15_000);
  return store;
};

describe('a service whose database goes away', () => {
  it('exits with one line when its embedded FerretDB exits, leaving the folder free', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    // Configured as deployed (PUBLIC_BASE_URL or SEARCH_URL unset would add its warning at start).
    const service = startMain({
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      SEARCH_URL: 'http://127.0.0.1:9/',
    });
    await waitForHealthy(service, port);

    process.kill(embeddedState(dataDir).pid, 'SIGKILL');
    expect(await service.exited).toBe(1);
    expect(lines(service.stderr())).toEqual([expect.stringMatching(/FerretDB .*exited/)]);
    expect(lockExists(dataDir)).toBe(false);
  }, 60_000);

  it('answers /healthz 503 while MongoDB is away, and exits once the grace period has passed', async () => {
    const storeDir = tempDataDir();
    const storePort = await freePort();
    const store = await startStore(storeDir, storePort);
    const port = await freePort();
    // A short heartbeat (a URI option of the driver) makes the loss show within a second.
    const env = {
      MONGODB_URI: `mongodb://127.0.0.1:${storePort}/lost?heartbeatFrequencyMS=500`,
      SECRETS_KEY: testSecretsKey,
      DATABASE_GRACE_MS: '4000',
      PORT: String(port),
    };
    const service = startMain(env);
    await waitForHealthy(service, port);

    store.child.kill('SIGKILL');
    await waitFor('/healthz to answer 503', async () => (await healthStatus(port)) === 503, 10_000);
    const lostAt = Date.now();
    expect(await service.exited).toBe(1);
    expect(Date.now() - lostAt).toBeGreaterThan(2_000);
    expect(lines(service.stderr()).filter((line) => line.includes('database'))).toEqual([expect.stringMatching(/lost/)]);
  }, 60_000);

  it('keeps serving when MongoDB comes back within the grace period', async () => {
    const storeDir = tempDataDir();
    const storePort = await freePort();
    const store = await startStore(storeDir, storePort);
    const port = await freePort();
    const env = {
      MONGODB_URI: `mongodb://127.0.0.1:${storePort}/back?heartbeatFrequencyMS=500`,
      SECRETS_KEY: testSecretsKey,
      DATABASE_GRACE_MS: '6000',
      PORT: String(port),
    };
    const service = startMain(env);
    await waitForHealthy(service, port);

    store.child.kill('SIGKILL');
    await store.exited;
    await waitFor('/healthz to answer 503', async () => (await healthStatus(port)) === 503, 10_000);
    await startStore(storeDir, storePort);
    await waitForHealthy(service, port, 10_000);
    await sleep(7_000);
    expect(service.child.exitCode).toBe(null);
    expect(await healthStatus(port)).toBe(200);
    expect(isRunning(service.pid)).toBe(true);
  }, 60_000);
});
