/**
 * Lead list throughput at 100,000 leads in one workspace, on REST, GraphQL
 * and tRPC, against a bare node:http + mongodb driver floor.
 *
 *   npm run bench:leads-list                 # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:leads-list
 *   BENCH_LEADS=2000 BENCH_SECONDS=10 …      # another size
 *
 * Each scenario gets its own server process (and, on the embedded store,
 * its own FerretDB process on the same files), so requests a saturated
 * store still holds from one scenario never slow the next. Everything runs
 * on 127.0.0.1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { startEmbeddedFerretDb } from '../src/db/embedded-ferretdb.ts';
import { importLeads } from '../src/leads/lead-import.service.ts';
import { createWorkspace } from '../src/workspaces/workspace.service.ts';
import { freePort, startService } from '../test/support/processes.ts';

const leadCount = Number(process.env.BENCH_LEADS ?? 100_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const connections = 32;
const searchTerm = 'northwind';
const dataDir = process.env.MONGODB_URI ? undefined : mkdtempSync(join(tmpdir(), 'leadops-bench-'));

/** The store for one phase: the given MongoDB, or a FerretDB process on the bench's files. */
async function openStore() {
  if (!dataDir) return { uri: process.env.MONGODB_URI!, stop: async () => {} };
  return startEmbeddedFerretDb({ dataDir, log: console.log });
}

async function seed() {
  const store = await openStore();
  await connectDatabase(store.uri);
  console.log(`seeding ${leadCount} leads through the import service (500 per call)...`);
  const workspace = await createWorkspace({ name: 'Bench', plan: 'business', email: 'bench@example.test' });
  const started = performance.now();
  for (let offset = 0; offset < leadCount; offset += 500) {
    const batch = Array.from({ length: Math.min(500, leadCount - offset) }, (_, i) => {
      const n = offset + i;
      return {
        company: n % 100 === 0 ? `Northwind ${n}` : `Company ${n}`,
        full_name: `Person ${n}`,
        email: `person${n}@company${n % 5000}.test`,
        domain: `company${n % 5000}.test`,
        title: 'Head of Growth',
        custom: { segment: `s${n % 7}` },
      };
    });
    await importLeads(workspace.workspaceId, { leads: batch });
  }
  const elapsed = (performance.now() - started) / 1000;
  console.log(`seeded in ${elapsed.toFixed(1)} s (${Math.round(leadCount / elapsed)} leads/s)\n`);
  await disconnectDatabase();
  await store.stop();
  return workspace;
}

const rssMiB = (pid: number | undefined, field: 'VmRSS' | 'VmHWM') =>
  pid ? Number(/\d+/.exec(readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(field))!)![0]) / 1024 : NaN;

const { workspaceId, apiKey } = await seed();
const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
const graphqlBody = JSON.stringify({ query: '{ leadsList(limit: 100) { total workspaceTotal leads { id company email custom status created_at } } }' });
const api = ['src/main.ts', 'api'];
const floor = ['bench/floor-server.ts'];
const scenarios = [
  { name: 'floor  GET ?limit=100', server: floor, path: '/?limit=100', floorOf: 'list' },
  { name: 'floor  GET ?q&limit=100', server: floor, path: `/?q=${searchTerm}&limit=100`, floorOf: 'search' },
  { name: 'REST   GET /api/leads?limit=100', server: api, path: '/api/leads?limit=100', vs: 'list' },
  { name: 'REST   GET /api/leads?q&limit=100', server: api, path: `/api/leads?q=${searchTerm}&limit=100`, vs: 'search' },
  { name: 'GraphQL leadsList(limit: 100)', server: api, path: '/graphql', method: 'POST' as const, body: graphqlBody, vs: 'list' },
  { name: 'tRPC   leads.list?limit=100', server: api, path: `/trpc/leads.list?input=${encodeURIComponent('{"limit":100}')}`, vs: 'list' },
];

const floors: Record<string, number> = {};
let peakApiRss = 0;
for (const scenario of scenarios) {
  const store = await openStore();
  const port = await freePort();
  const env = { MONGODB_URI: store.uri, PORT: String(port), RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'warn', BENCH_WORKSPACE_ID: workspaceId };
  const health = scenario.server === api ? '/healthz' : '/?limit=1';
  const server = await startService(process.execPath, scenario.server, env, `http://127.0.0.1:${port}${health}`, 120_000);
  const url = `http://127.0.0.1:${port}${scenario.path}`;

  // One request alone first: its latency without load, and a check that the scenario answers 200.
  const probeStart = performance.now();
  const probe = await fetch(url, { method: scenario.method ?? 'GET', body: scenario.body, headers: auth });
  await probe.text();
  const alone = performance.now() - probeStart;
  if (!probe.ok) throw new Error(`${scenario.name} answered ${probe.status}`);

  const result = await autocannon({ url, method: scenario.method ?? 'GET', body: scenario.body, headers: auth, connections, duration: seconds, timeout: 120 });
  const rps = result.requests.average;
  if (scenario.floorOf) floors[scenario.floorOf] = rps;
  if (scenario.server === api) peakApiRss = Math.max(peakApiRss, rssMiB(server.pid, 'VmHWM'));
  const ratio = scenario.vs && floors[scenario.vs] ? `  ${(rps / floors[scenario.vs]!).toFixed(2)}x floor` : '';
  const failures = result.non2xx + result.errors + result.timeouts;
  console.log(
    `${scenario.name.padEnd(36)} ${rps.toFixed(2).padStart(9)} req/s  p50 ${String(result.latency.p50).padStart(6)} ms  p99 ${String(result.latency.p99).padStart(6)} ms  alone ${alone.toFixed(0).padStart(5)} ms  (${result.requests.total} done${failures ? `, ${failures} failed` : ''})${ratio}`,
  );
  await server.stop();
  await store.stop();
}

console.log(`\n${leadCount} leads, ${connections} connections, ${seconds} s per scenario, store: ${dataDir ? 'embedded FerretDB 1.24 (SQLite)' : 'MONGODB_URI'}`);
console.log(`API process peak RSS ${peakApiRss.toFixed(0)} MiB`);
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
