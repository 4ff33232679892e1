import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { testSecretsKey } from '../support/api-server.ts';
import { projectRoot } from '../support/processes.ts';
import {
  embeddedState,
  freePort,
  healthStatus,
  killAfterTest,
  portIsOpen,
  spawnProcess,
  startMain,
  tempDataDir,
  waitFor,
  waitForHealthy,
} from './service.ts';

/** The bound the tests set: a call on a store that stopped answering is answered 503 after about this long. */
const timeoutMs = 1_500;
/** Far beyond what a bounded call takes (about the bound, plus the heartbeat that notices the store stopped); a hung call never answers. */
const answerWithinMs = 15_000;

/** A FerretDB of the test's own on a known port, standing in for a MongoDB server the service reaches over MONGODB_URI. */
async function startStore(dataDir: string, port: number) {
  const store = spawnProcess(
    join(projectRoot, '.tools/bin/ferretdb'),
    ['--listen-addr', `127.0.0.1:${port}`, '--log-level', 'error', '--handler', 'sqlite', '--sqlite-url', `file:${dataDir}/`],
    {},
  );
  await waitFor('the store to listen', () => portIsOpen(port), 15_000);
  return store;
}

const leadsOf = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, n) => ({ email: `${prefix}${n}@hung.test`, company: 'Hung' }));

/**
 * Stops the store (SIGSTOP) under a running service and checks what its clients and a supervisor see: calls answer
 * 503 database_unavailable with Retry-After within the bound, /healthz 503; then SIGCONT, and the same process serves
 * reads, writes and background jobs again. `storeUri` reaches the service's database directly.
 */
async function hangAndResume(port: number, storePid: number, storeUri: string, { apiKey, workspaceId }: Workspace) {
  const base = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(answerWithinMs),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, any> };
  };
  expect((await call('POST', '/api/leads', { leads: leadsOf(3, 'before-') })).status).toBe(201);

  // A write under way when the store stops: an import admitted (its use of the rate limit recorded) that waits for the
  // workspace's turn to store leads, which the test holds.
  const store = await new MongoClient(storeUri, { serverSelectionTimeoutMS: 5_000 }).connect();
  const turns = store.db().collection<{ _id: string; holder: string; until: Date }>('lead_cap_turns');
  await turns.updateOne({ _id: workspaceId }, { $set: { holder: 'the test', until: new Date(Date.now() + 600_000) } }, { upsert: true });
  const recorded = async () =>
    (await store.db().collection<{ count: number }>('rate_limit_windows').find().toArray()).reduce((sum, { count }) => sum + count, 0);
  const before = await recorded();
  const underWay = call('POST', '/api/leads', { leads: leadsOf(2, 'under-way-') });
  await waitFor('the import to be admitted', async () => (await recorded()) > before, 10_000);

  killAfterTest(storePid);
  process.kill(storePid, 'SIGSTOP');
  try {
    await waitFor('/healthz to answer 503', async () => (await healthStatus(port)) === 503, 5_000);
    const health = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) });
    expect({ status: health.status, body: await health.json() }).toMatchObject({
      status: 503,
      body: { ok: false, database: 'unavailable', error: expect.any(String) },
    });

    const [interrupted, read, write, trpc] = await Promise.all([
      underWay,
      call('GET', '/api/leads?q=before-'),
      call('POST', '/api/leads', { leads: leadsOf(2, 'during-') }),
      fetch(`${base}/trpc/leads.capacity`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(answerWithinMs) }),
    ]);
    for (const answer of [interrupted, read, write]) {
      expect(answer).toMatchObject({
        status: 503,
        body: { code: 'database_unavailable', error: expect.stringContaining('DATABASE_TIMEOUT_MS') },
      });
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      expect(answer.body.retryAfter).toBe(Number(answer.retryAfter));
    }
    // The write under way may have reached the store before it stopped: it is not said to have failed. One refused
    // before it began (its credential could not be read) was not applied, and a read changes nothing.
    expect(interrupted.body.error).toContain('may or may not have been applied');
    expect(write.body.error).toContain("This call's change was not applied.");
    expect(read.body.error).not.toContain('applied');
    expect(trpc.status).toBe(503);
    expect(trpc.headers.get('retry-after')).not.toBe(null);
  } finally {
    process.kill(storePid, 'SIGCONT');
  }

  await waitFor('/healthz to answer 200 again', async () => (await healthStatus(port)) === 200, 20_000);
  await turns.deleteOne({ _id: workspaceId });
  await store.close();
  expect(await call('GET', '/api/leads?q=before-')).toMatchObject({ status: 200, body: { total: 3 } });
  expect(await call('POST', '/api/leads', { leads: leadsOf(2, 'after-') })).toMatchObject({ status: 201, body: { created: 2 } });
  // Background jobs run again: an agent run (no search configured) is taken by the worker and ended.
  const started = await call('POST', '/api/agents/runs', { goal: 'CTOs of fintech companies in Berlin' });
  expect(started.status).toBe(202);
  await waitFor(
    'the worker to end the agent run',
    async () => ['completed', 'failed'].includes((await call('GET', `/api/agents/runs/${started.body.run_id}`)).body.status),
    30_000,
  );
}

interface Workspace {
  apiKey: string;
  workspaceId: string;
}

const createWorkspace = (env: Record<string, string>): Workspace => {
  const created = spawnSync(
    process.execPath,
    ['src/cli/main.ts', 'workspace', 'create', '--name', 'Hung', '--plan', 'pro', '--email', 'h@hung.test'],
    {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    },
  );
  expect(created.status, created.stderr).toBe(0);
  return JSON.parse(created.stdout) as Workspace;
};

describe('a store that stops answering', () => {
  // The grace before a service gives up on its database and exits is far longer than the hang.
  const bounds = { DATABASE_TIMEOUT_MS: String(timeoutMs), DATABASE_GRACE_MS: '120000' };

  it('the embedded FerretDB: calls answer 503 database_unavailable within the bound, /healthz 503, and all works again on SIGCONT', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    const service = startMain({ DATA_DIR: dataDir, PORT: String(port), ...bounds });
    await waitForHealthy(service, port);
    const workspace = createWorkspace({ DATA_DIR: dataDir });

    const { pid, port: storePort } = embeddedState(dataDir);
    await hangAndResume(port, pid, `mongodb://127.0.0.1:${storePort}/leadops`, workspace);
    expect(service.child.exitCode).toBe(null);
  }, 180_000);

  it('a MongoDB server over MONGODB_URI: the same answers, and the same recovery', async () => {
    const storePort = await freePort();
    const store = await startStore(tempDataDir(), storePort);
    const port = await freePort();
    const env = { MONGODB_URI: `mongodb://127.0.0.1:${storePort}/hung`, SECRETS_KEY: testSecretsKey };
    const service = startMain({ ...env, PORT: String(port), ...bounds });
    await waitForHealthy(service, port);
    const workspace = createWorkspace(env);

    await hangAndResume(port, store.pid, env.MONGODB_URI, workspace);
    expect(service.child.exitCode).toBe(null);
  }, 180_000);
});
