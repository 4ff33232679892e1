import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { freePort, startService } from '../support/processes.ts';

const server = useApiServer();

/** Two API processes of their own (`src/main.ts api`, a limit of 5 a minute) on the test server's database. */
let apis: Array<Awaited<ReturnType<typeof startService>> & { url: string }> = [];
beforeAll(async () => {
  apis = await Promise.all(
    [0, 1].map(async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const env = { MONGODB_URI: server.databaseUri, SECRETS_KEY: testSecretsKey, PORT: String(port), HOST: '127.0.0.1' };
      const api = await startService(
        process.execPath,
        ['src/main.ts', 'api'],
        { ...env, RATE_LIMIT_PER_MINUTE: '5', LOG_LEVEL: 'warn' },
        `${url}/healthz`,
      );
      return { ...api, url };
    }),
  );
}, 90_000);
afterAll(() => Promise.all(apis.map((api) => api.stop())));

/** `count` requests for /api/user at once, alternating between the two processes: their statuses. */
const burst = (key: string, count: number) =>
  Promise.all(
    Array.from({ length: count }, (_, n) =>
      fetch(`${apis[n % 2]!.url}/api/user`, { headers: { authorization: `Bearer ${key}` } }).then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      }),
    ),
  );

describe('the rate limit across API processes on one database', () => {
  it("admits all of a fresh key's concurrent first requests within the limit, from both processes", async () => {
    const workspace = await createTestWorkspace();
    for (let round = 0; round < 8; round++) expect(await burst(await workspace.keyWith('read'), 5)).toEqual([200, 200, 200, 200, 200]);
  });

  it('admits exactly the limit out of a concurrent burst on a fresh key split between them, just over the limit or far over', async () => {
    const workspace = await createTestWorkspace();
    for (const size of [6, 16, 6, 16, 6, 6]) {
      const statuses = await burst(await workspace.keyWith('read'), size);
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(size - 5);
    }
  });
});
