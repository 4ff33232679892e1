import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSecretsKey } from '../support/api-server.ts';
import { freshDatabaseUri } from '../support/database.ts';
import { portIsOpen, run, startService } from '../support/processes.ts';

/** The same code served by Deno 2 (`npm run start:deno`, as the README says): auth, a leads round trip, GraphQL and OpenAPI over HTTP, and a stop. */
describe('Deno runtime smoke test', () => {
  const env = { MONGODB_URI: freshDatabaseUri(), SECRETS_KEY: testSecretsKey, PORT: '0', DENO_NO_UPDATE_CHECK: '1' };
  let baseUrl: string;
  let port: number;
  let service: Awaited<ReturnType<typeof startService>>;
  let apiKey: string;

  beforeAll(async () => {
    // On a port of its own choosing, read from its log line: a port picked here could be taken by another test's
    // server during Deno's slower start.
    service = await startService('npm', ['run', '--silent', 'start:deno'], { ...env, PORT: '0' }, null, 90_000);
    port = await listeningPort(service, 90_000);
    baseUrl = `http://127.0.0.1:${port}`;
    for (
      const deadline = Date.now() + 30_000;
      !(await fetch(`${baseUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      ));
    ) {
      if (Date.now() > deadline) throw new Error(`the Deno service did not answer /healthz:\n${service.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const created = await run(
      process.execPath,
      ['src/cli/main.ts', 'workspace', 'create', '--name', 'Deno', '--plan', 'free', '--email', 'd@x.test'],
      env,
    );
    apiKey = JSON.parse(created.stdout).apiKey;
  }, 120_000);
  afterAll(() => service?.stop());

  /** The port of the service's `api listening` log line. */
  async function listeningPort(started: typeof service, timeoutMs: number): Promise<number> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const line = started
        .output()
        .split('\n')
        .slice(0, -1) // whole lines only
        .find((text) => text.includes('"api listening"'));
      if (line) return (JSON.parse(line) as { port: number }).port;
    }
    throw new Error(`the Deno service did not say where it listens:\n${started.output()}`);
  }

  const call = (path: string, init: RequestInit = {}, key: string | null = apiKey) =>
    fetch(`${baseUrl}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    });

  it('authenticates', async () => {
    expect((await call('/api/user', {}, null)).status).toBe(401);
    const res = await call('/api/user');
    expect(res.status).toBe(200);
    expect((await res.json()).data.email).toBe('d@x.test');
  });

  it('round-trips a lead', async () => {
    const created = await call('/api/leads', {
      method: 'POST',
      body: JSON.stringify({ leads: [{ email: 'lead@deno.test', company: 'Dino' }] }),
    });
    expect(created.status).toBe(201);
    const list = await (await call('/api/leads?q=dino')).json();
    expect(list.leads.map((l: { email: string }) => l.email)).toEqual(['lead@deno.test']);
    const removed = await call('/api/leads', { method: 'DELETE', body: JSON.stringify({ ids: [list.leads[0].id] }) });
    expect(await removed.json()).toEqual({ ok: true, deleted: 1 });
  });

  it('serves GraphQL and OpenAPI', async () => {
    const graphql = await call('/graphql', { method: 'POST', body: JSON.stringify({ query: '{ leadsCapacity { tier limit } }' }) });
    expect(await graphql.json()).toEqual({ data: { leadsCapacity: { tier: 'free', limit: 5000 } } });
    const openapi = await (await call('/openapi.json')).json();
    expect(openapi.paths['/api/leads'].get).toBeDefined();
  });

  it('stops on a SIGTERM sent to the command it was started with, leaving nothing serving', async () => {
    await service.stop();
    for (const deadline = Date.now() + 15_000; (await portIsOpen(port)) && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 100));
    expect(await portIsOpen(port)).toBe(false);
  });
});
