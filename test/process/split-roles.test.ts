import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/processes.ts';
import { embeddedState, freePort, lines, startMain, tempDataDir, waitFor, waitForHealthy } from './service.ts';

const cli = (dataDir: string, ...args: string[]) =>
  spawnSync(process.execPath, ['src/cli/main.ts', ...args], {
    cwd: projectRoot,
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });

const leadsOf = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, n) => ({ email: `${prefix}${n}@split.test`, company: 'Split' }));

/** `npm run api` (any number) and `npm run worker` share one DATA_DIR: the first starts FerretDB, the others join it. */
describe('split roles on one embedded database', () => {
  it('serves two APIs and a worker on one DATA_DIR, storing exactly up to the lead cap from both at once', async () => {
    const dataDir = tempDataDir();
    const ports = [await freePort(), await freePort()];
    const first = startMain({ DATA_DIR: dataDir, PORT: String(ports[0]) }, 'api');
    await waitForHealthy(first, ports[0]!, 60_000, false);
    const second = startMain({ DATA_DIR: dataDir, PORT: String(ports[1]) }, 'api');
    const worker = startMain({ DATA_DIR: dataDir }, 'worker');
    await waitForHealthy(second, ports[1]!, 60_000, false);
    await waitFor('the worker to start', () => worker.stdout().includes('worker started'));
    expect(embeddedState(dataDir).owner).toBe(first.pid);

    const created = cli(dataDir, 'workspace', 'create', '--name', 'Split', '--plan', 'free', '--email', 'split@x.test');
    expect(created.status).toBe(0);
    const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
    const post = (port: number, leads: unknown[]) =>
      fetch(`http://127.0.0.1:${port}/api/leads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ leads }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));

    // The free plan stores 5,000. 4,600 first, then 8 racing imports of 100 from both APIs: exactly 4 fit.
    for (let batch = 0; batch < 10; batch++) expect((await post(ports[batch % 2]!, leadsOf(460, `fill${batch}-`))).status).toBe(201);
    const racing = await Promise.all(Array.from({ length: 8 }, (_, n) => post(ports[n % 2]!, leadsOf(100, `race${n}-`))));
    expect(racing.filter((r) => r.status === 201)).toHaveLength(4);
    for (const refused of racing.filter((r) => r.status !== 201))
      expect(refused).toMatchObject({ status: 403, body: { code: 'lead_limit', limit: 5000 } });
    for (const port of ports) {
      const capacity = await fetch(`http://127.0.0.1:${port}/api/leads/capacity`, { headers: { authorization: `Bearer ${apiKey}` } }).then(
        (r) => r.json(),
      );
      expect(capacity).toMatchObject({ used: 5000, limit: 5000, remaining: 0 });
    }

    // The worker works on the shared database: an agent run started on one API (no search configured) ends there.
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const started = await fetch(`http://127.0.0.1:${ports[1]}/api/agents/runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ goal: 'CTOs of fintech companies in Berlin' }),
    }).then((r) => r.json() as Promise<{ run_id: string }>);
    await waitFor(
      'the worker to end the agent run',
      async () => {
        const run = (await fetch(`http://127.0.0.1:${ports[0]}/api/agents/runs/${started.run_id}`, { headers }).then((r) => r.json())) as {
          status: string;
        };
        return ['completed', 'failed'].includes(run.status);
      },
      60_000,
    );

    // The owner stops: the processes that joined its database exit non-zero, saying why, for a supervisor to restart them.
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(await second.exited).not.toBe(0);
    expect(await worker.exited).not.toBe(0);
    for (const joined of [second, worker]) expect(lines(joined.stderr()).join('\n')).toContain('joined');
  }, 240_000);
});
