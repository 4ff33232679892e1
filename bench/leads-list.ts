/**
 * Lead list throughput at 100,000 leads in one workspace, on REST, GraphQL
 * and tRPC, against a bare node:http + mongodb driver floor.
 *
 *   npm run bench:leads-list                 # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:leads-list
 *   BENCH_LEADS=20000 BENCH_SECONDS=10 …     # smaller run
 *
 * Everything runs on 127.0.0.1.
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
const database = dataDir ? await startEmbeddedFerretDb({ dataDir, log: console.log }) : undefined;
const uri = process.env.MONGODB_URI ?? database!.uri;
await connectDatabase(uri);

console.log(`seeding ${leadCount} leads through the import service (500 per call)...`);
const { workspaceId, apiKey } = await createWorkspace({ name: 'Bench', plan: 'business', email: 'bench@example.test' });
const seedStart = performance.now();
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
  await importLeads(workspaceId, { leads: batch });
}
const seedSeconds = (performance.now() - seedStart) / 1000;
console.log(`seeded in ${seedSeconds.toFixed(1)} s (${Math.round(leadCount / seedSeconds)} leads/s)`);
await disconnectDatabase();

const env = { MONGODB_URI: uri, RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'warn', BENCH_WORKSPACE_ID: workspaceId };
const apiPort = await freePort();
const floorPort = await freePort();
const api = await startService(process.execPath, ['src/main.ts', 'api'], { ...env, PORT: String(apiPort) }, `http://127.0.0.1:${apiPort}/healthz`);
const floor = await startService(process.execPath, ['bench/floor-server.ts'], { ...env, PORT: String(floorPort) }, `http://127.0.0.1:${floorPort}/?limit=1`);

const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
const graphqlBody = JSON.stringify({ query: '{ leadsList(limit: 100) { total workspaceTotal leads { id company email custom status created_at } } }' });
const scenarios = [
  { name: 'floor  GET ?limit=100', url: `http://127.0.0.1:${floorPort}/?limit=100`, floor: 'list' },
  { name: 'floor  GET ?q&limit=100', url: `http://127.0.0.1:${floorPort}/?q=${searchTerm}&limit=100`, floor: 'search' },
  { name: 'REST   GET /api/leads?limit=100', url: `http://127.0.0.1:${apiPort}/api/leads?limit=100`, vs: 'list' },
  { name: 'REST   GET /api/leads?q&limit=100', url: `http://127.0.0.1:${apiPort}/api/leads?q=${searchTerm}&limit=100`, vs: 'search' },
  { name: 'GraphQL leadsList(limit: 100)', url: `http://127.0.0.1:${apiPort}/graphql`, method: 'POST' as const, body: graphqlBody, vs: 'list' },
  { name: 'tRPC   leads.list?limit=100', url: `http://127.0.0.1:${apiPort}/trpc/leads.list?input=${encodeURIComponent('{"limit":100}')}`, vs: 'list' },
];

const floors: Record<string, number> = {};
const rows: string[] = [];
for (const scenario of scenarios) {
  // One request alone first: its latency without load, and a check that the scenario answers 200.
  const probeStart = performance.now();
  const probe = await fetch(scenario.url, { method: scenario.method ?? 'GET', body: scenario.body, headers: auth });
  await probe.text();
  const single = performance.now() - probeStart;
  if (!probe.ok) throw new Error(`${scenario.name} answered ${probe.status}`);
  const result = await autocannon({ url: scenario.url, method: scenario.method ?? 'GET', body: scenario.body, headers: auth, connections, duration: seconds });
  const rps = result.requests.average;
  if (scenario.floor) floors[scenario.floor] = rps;
  const ratio = scenario.vs && floors[scenario.vs] ? ` ${(rps / floors[scenario.vs]!).toFixed(2)}x floor` : '';
  const errors = result.non2xx + result.errors + result.timeouts;
  rows.push(
    `${scenario.name.padEnd(36)} ${rps.toFixed(1).padStart(8)} req/s  p50 ${String(result.latency.p50).padStart(6)} ms  p99 ${String(result.latency.p99).padStart(6)} ms  alone ${single.toFixed(0).padStart(5)} ms${ratio}${errors ? `  (${errors} errors/timeouts)` : ''}`,
  );
  console.log(rows.at(-1));
}

const rss = (pid: number | undefined, field: 'VmRSS' | 'VmHWM') =>
  pid ? Number(/\d+/.exec(readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(field))!)![0]) / 1024 : NaN;
console.log(`\n${leadCount} leads, ${connections} connections, ${seconds} s each, store: ${database ? 'embedded FerretDB 1.24 (SQLite)' : 'MONGODB_URI'}`);
console.log(`API process RSS ${rss(api.pid, 'VmRSS').toFixed(0)} MiB (peak ${rss(api.pid, 'VmHWM').toFixed(0)} MiB); floor RSS ${rss(floor.pid, 'VmRSS').toFixed(0)} MiB`);

await api.stop();
await floor.stop();
await database?.stop();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
