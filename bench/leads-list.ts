/**
 * Authenticated API throughput on REST, GraphQL and tRPC against a bare
 * node:http + mongodb driver floor doing the same database work
 * (bench/floor-server.ts), in one run:
 *   - the lead list (100 per page; with a `q` search; filtered by status;
 *     by score, email_status, has_email, created_after and custom.<key>;
 *     the changes after the middle lead's updated_at, the page after a
 *     cursor), and the lead capacity, at 100,000 leads in one workspace;
 *   - the import (POST /api/leads, 500 leads a call, 4 calls at once), in
 *     leads a second, last, as it grows the workspace;
 *   - GET /api/user, the cheapest authenticated call (key, rate-limit
 *     window and user reads), against a floor doing those same reads;
 *     and again from one key at a limit of 100,000 a minute, all its
 *     requests counted in one window (a request's cost must not grow with
 *     the limit, nor a fresh key's concurrent first requests be refused).
 * Each line also gives one request's latency alone, before the load (the median of three after one not counted;
 * an import's first call alone).
 *
 *   npm run bench:leads-list                 # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:leads-list
 *   BENCH_LEADS=2000 BENCH_SECONDS=3 …       # another size / duration
 *   BENCH_GROUPS=user BENCH_LEADS=0 …        # only some groups (list, search, filtered, capacity, score, email_status,
 *                                            # has_email, created, custom, updated+cursor, user, import)
 *   BENCH_KEYS=2000 …                        # API keys per scenario (default 50 per second of run)
 *
 * Traffic looks like real traffic: the API runs with the default rate limit
 * (60 requests per minute per key) and each scenario spreads its requests
 * round-robin over its own BENCH_KEYS fresh keys, made with createOwnerKey,
 * so no key passes 60 requests in its one-minute window and no request is
 * refused. A run is capped at keys × 60 requests; if that cap, not the
 * duration, ends it, the line says so. Anything but 2xx is printed. The
 * peak RSS of the API processes and of the embedded FerretDB processes is
 * printed last.
 *
 * Each scenario gets its own server process (and, on the embedded store,
 * its own FerretDB process on the same files), so requests a saturated
 * store still holds from one scenario never slow the next. Everything runs
 * on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { BSON } from 'mongodb';
import mongoose from 'mongoose';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { declareField } from '../src/leads/lead-fields.service.ts';
import { afterCursor, cursorAfter } from '../src/leads/lead-list-page.ts';
import { freePort, startService } from '../test/support/processes.ts';
import { formatFigures, loadWithKeys, rateLimitPerMinute } from './support-load.ts';
import { statusMiB } from './support-process.ts';
import { benchStore, createKeys, searchTerm, seedLeads } from './support-store.ts';

const leadCount = Number(process.env.BENCH_LEADS ?? 100_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const keysPerScenario = Number(process.env.BENCH_KEYS ?? 50 * seconds);
const groups = (
  process.env.BENCH_GROUPS ?? 'list,search,filtered,capacity,score,email_status,has_email,created,custom,updated+cursor,user,import'
).split(',');
const connections = 32;
const store = benchStore('bench');
const { EJSON } = BSON;

const graphqlBody = JSON.stringify({
  query: '{ leadsList(limit: 100) { total workspaceTotal leads { id company email custom status created_at } } }',
});
const api = ['src/main.ts', 'api'];
const floor = ['bench/floor-server.ts'];
/** What the new filters' scenarios ask for, from the seeded leads. */
interface Seeded {
  /** The createdAt of the lead in the middle, in created order. */
  midCreated: Date;
  /** The updatedAt of the lead in the middle, in change order: `updated_after` selects half the leads. */
  midUpdated: Date;
  /** The API's cursor after the 100th of those, and the floor's keyset condition for it. */
  cursor: string;
  after: Record<string, unknown>;
}
const ejson = (value: unknown) => encodeURIComponent(EJSON.stringify(value, { relaxed: false }));
const floorFilter = (filter: Record<string, unknown>, extra = '') => `/?limit=100&filter=${ejson(filter)}${extra}`;

interface Scenario {
  name: string;
  server: string[];
  path: string | ((seeded: Seeded) => string);
  group: string;
  /** The floor of its group, or a scenario compared with it. */
  isFloor?: boolean;
  /** Sends API keys (the list floor reads none). */
  authenticated: boolean;
  /** Keys it spreads its load over, if not BENCH_KEYS. */
  keys?: number;
  /** The API's RATE_LIMIT_PER_MINUTE, if not the default. */
  limit?: number;
  method?: 'POST';
  body?: string;
}
const scenarios = (
  [
    { name: 'floor  GET ?limit=100', server: floor, path: '/?limit=100', group: 'list', isFloor: true, authenticated: false },
    {
      name: 'floor  GET ?q&limit=100',
      server: floor,
      path: `/?q=${searchTerm}&limit=100`,
      group: 'search',
      isFloor: true,
      authenticated: false,
    },
    {
      name: 'floor  GET ?status&limit=100',
      server: floor,
      path: '/?status=new&limit=100',
      group: 'filtered',
      isFloor: true,
      authenticated: false,
    },
    { name: 'floor  GET /capacity', server: floor, path: '/capacity', group: 'capacity', isFloor: true, authenticated: false },
    // The list's filters on a lead's state and time, and its changes paged by cursor (one group each).
    ...newFilterScenarios(),
    { name: 'REST   GET /api/leads?limit=100', server: api, path: '/api/leads?limit=100', group: 'list', authenticated: true },
    {
      name: 'REST   GET /api/leads?q&limit=100',
      server: api,
      path: `/api/leads?q=${searchTerm}&limit=100`,
      group: 'search',
      authenticated: true,
    },
    {
      name: 'REST   GET /api/leads?status&limit=100',
      server: api,
      path: '/api/leads?status=new&limit=100',
      group: 'filtered',
      authenticated: true,
    },
    { name: 'REST   GET /api/leads/capacity', server: api, path: '/api/leads/capacity', group: 'capacity', authenticated: true },
    {
      name: 'GraphQL leadsList(limit: 100)',
      server: api,
      path: '/graphql',
      method: 'POST',
      body: graphqlBody,
      group: 'list',
      authenticated: true,
    },
    {
      name: 'tRPC   leads.list?limit=100',
      server: api,
      path: `/trpc/leads.list?input=${encodeURIComponent('{"limit":100}')}`,
      group: 'list',
      authenticated: true,
    },
    { name: 'floor  GET /user (same reads)', server: floor, path: '/user', group: 'user', isFloor: true, authenticated: true },
    { name: 'REST   GET /api/user', server: api, path: '/api/user', group: 'user', authenticated: true },
    {
      name: 'REST   GET /api/user 1 key 100k/min',
      server: api,
      path: '/api/user',
      group: 'user',
      authenticated: true,
      keys: 1,
      limit: 100_000,
    },
    // Last: it grows the workspace.
    {
      name: 'floor  POST /import (500 leads)',
      server: floor,
      path: '/import',
      method: 'POST',
      group: 'import',
      isFloor: true,
      authenticated: false,
    },
    { name: 'REST   POST /api/leads (500 leads)', server: api, path: '/api/leads', method: 'POST', group: 'import', authenticated: true },
  ] satisfies Scenario[] as Scenario[]
).filter((s) => groups.includes(s.group));

function newFilterScenarios(): Scenario[] {
  const pairs: Array<[group: string, api: Scenario['path'], floorPath: Scenario['path']]> = [
    ['score', '/api/leads?score_min=20&score_max=40&limit=100', floorFilter({ score: { $gte: 20, $lte: 40 } })],
    ['email_status', '/api/leads?email_status=valid,accept_all&limit=100', floorFilter({ email_status: { $in: ['valid', 'accept_all'] } })],
    ['has_email', '/api/leads?has_email=true&limit=100', floorFilter({ email: { $ne: null } })],
    [
      'created',
      (seeded) => `/api/leads?created_after=${seeded.midCreated.toISOString()}&limit=100`,
      (seeded) => floorFilter({ createdAt: { $gt: seeded.midCreated } }),
    ],
    ['custom', '/api/leads?custom.segment=s3&limit=100', floorFilter({ 'custom.segment': 's3' })],
    [
      'updated+cursor',
      (seeded) => `/api/leads?updated_after=${seeded.midUpdated.toISOString()}&cursor=${seeded.cursor}&limit=100`,
      (seeded) =>
        floorFilter(
          { updatedAt: { $gt: seeded.midUpdated } },
          `&after=${ejson(seeded.after)}&sort=${encodeURIComponent('{"updatedAt":1,"_id":1}')}`,
        ),
    ],
  ];
  return pairs.flatMap(([group, apiPath, floorPath]) => [
    { name: `floor  GET ${group}`, server: floor, path: floorPath, group, isFloor: true, authenticated: false },
    { name: `REST   GET /api/leads ${group}`, server: api, path: apiPath, group, authenticated: true },
  ]);
}

/** Declares the seeded `segment` column, marks a quarter of the leads `valid`, and finds the new filters' bounds. */
async function seedForFilters(workspaceId: string): Promise<Seeded> {
  await declareField(workspaceId, { label: 'Segment', type: 'text', description: '', auto_research: false });
  const leads = mongoose.connection.db!.collection('leads');
  await leads.updateMany({ workspaceId, score: { $lt: 25 } }, { $set: { email_status: 'valid' } });
  const middle = Math.floor(leadCount / 2);
  const [mid] = await leads.find({ workspaceId }).sort({ createdAt: 1, _id: 1 }).skip(middle).limit(1).toArray();
  const [midChange] = await leads.find({ workspaceId }).sort({ updatedAt: 1, _id: 1 }).skip(middle).limit(1).toArray();
  const midUpdated = (midChange?.updatedAt as Date | undefined) ?? new Date(0);
  const [hundredth] = await leads
    .find({ workspaceId, updatedAt: { $gt: midUpdated } })
    .sort({ updatedAt: 1, _id: 1 })
    .skip(99)
    .limit(1)
    .toArray();
  const position = (hundredth ?? midChange ?? { _id: '', createdAt: new Date(0), updatedAt: new Date(0) }) as {
    _id: string;
    createdAt: Date;
    updatedAt: Date;
  };
  return {
    midCreated: (mid?.createdAt as Date | undefined) ?? new Date(0),
    midUpdated,
    cursor: cursorAfter('updated', position),
    after: afterCursor(cursorAfter('updated', position), 'updated', 0),
  };
}

const importBatch = 500;
const importersAtOnce = 4;
let importedSoFar = 0;
/** 500 leads never stored before. */
const importBody = () =>
  JSON.stringify({
    leads: Array.from({ length: importBatch }, () => {
      const n = importedSoFar++;
      return {
        email: `imported${n}@import${n % 5000}.test`,
        full_name: `Imported ${n}`,
        company: `Import ${n % 5000}`,
        domain: `import${n % 5000}.test`,
      };
    }),
  });

/** Imports for `seconds` from `importersAtOnce` clients at once, each call with its own key; leads stored a second. */
async function loadImports(url: string, keys: string[]): Promise<{ leadsPerSecond: number; calls: number; failed: string[] }> {
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let calls = 0;
  let sent = 0;
  const failed: string[] = [];
  const importer = async () => {
    while (performance.now() < deadline) {
      const key = keys[sent++ % Math.max(keys.length, 1)];
      const response = await fetch(url, {
        method: 'POST',
        body: importBody(),
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      });
      const text = await response.text();
      if (response.status === 201) calls++;
      else failed.push(`${response.status} ${text.slice(0, 120)}`);
    }
  };
  await Promise.all(Array.from({ length: importersAtOnce }, importer));
  return { leadsPerSecond: (calls * importBatch) / ((performance.now() - started) / 1000), calls, failed };
}

/** The workspace with its leads, and for each authenticated scenario its own keys (the last one for the probe). */
async function seed() {
  const { uri, stop } = await store.open();
  // Every collection and index the service declares, as a store it has served before holds them: the first API
  // process would otherwise create them while its first request waits.
  await import('../src/http/router.ts');
  await import('../src/worker/registry.ts');
  await connectDatabase(uri);
  const workspace = await createWorkspace({ name: 'Bench', plan: 'business', email: 'bench@example.test' });
  if (leadCount) {
    console.log(`seeding ${leadCount} leads through the import service (500 per call)...`);
    const elapsed = await seedLeads(workspace.workspaceId, 0, leadCount);
    console.log(`seeded in ${elapsed.toFixed(1)} s (${Math.round(leadCount / elapsed)} leads/s)`);
  }
  const seeded = await seedForFilters(workspace.workspaceId);
  const started = performance.now();
  const keys = new Map<Scenario, string[]>();
  for (const scenario of scenarios.filter((s) => s.authenticated))
    keys.set(scenario, await createKeys(workspace.workspaceId, (scenario.keys ?? keysPerScenario) + 1, scenario.name));
  const made = [...keys.values()].reduce((sum, list) => sum + list.length, 0);
  console.log(`${made} API keys made for ${keys.size} scenarios in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  await disconnectDatabase();
  await stop();
  return { workspaceId: workspace.workspaceId, keys, seeded };
}

const { workspaceId, keys, seeded } = await seed();
const floors: Record<string, number> = {};
let peakApiRss = 0;
let peakStoreRss = 0;
/** The scenario's embedded FerretDB's peak RSS so far, before it stops (nothing on MONGODB_URI). */
const noteStoreRss = () => {
  const pid = store.pid();
  if (pid !== null) peakStoreRss = Math.max(peakStoreRss, statusMiB(pid, 'VmHWM'));
};
for (const scenario of scenarios) {
  const database = await store.open();
  const port = await freePort();
  const env = {
    MONGODB_URI: database.uri,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    PORT: String(port),
    RATE_LIMIT_PER_MINUTE: String(scenario.limit ?? rateLimitPerMinute),
    LOG_LEVEL: 'warn',
    BENCH_WORKSPACE_ID: workspaceId,
  };
  const health = scenario.server === api ? '/healthz' : '/capacity';
  const server = await startService(process.execPath, scenario.server, env, `http://127.0.0.1:${port}${health}`, 120_000);
  const url = `http://127.0.0.1:${port}${typeof scenario.path === 'string' ? scenario.path : scenario.path(seeded)}`;
  const scenarioKeys = keys.get(scenario) ?? [];
  const probeKey = scenarioKeys.pop();

  // Requests alone first, one after another: a check that the scenario answers 2xx, and the latency without load.
  // The first is not counted: the scenario's processes are new, each connection of the store's reading its schema
  // and pages for the first time, which a deployed service did long ago. The figure is the median of the next three.
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(probeKey ? { authorization: `Bearer ${probeKey}` } : {}),
  };
  const latencies: number[] = [];
  for (let n = 0; n < (scenario.group === 'import' ? 1 : 4); n++) {
    const probeStart = performance.now();
    const probe = await fetch(url, {
      method: scenario.method ?? 'GET',
      body: scenario.group === 'import' ? importBody() : scenario.body,
      headers,
    });
    await probe.text();
    latencies.push(performance.now() - probeStart);
    if (!probe.ok) throw new Error(`${scenario.name} answered ${probe.status}`);
  }
  const alone = latencies.length === 1 ? latencies[0]! : latencies.slice(1).sort((a, b) => a - b)[1]!;

  if (scenario.group === 'import') {
    const imported = await loadImports(url, scenarioKeys);
    if (scenario.isFloor) floors[scenario.group] = imported.leadsPerSecond;
    if (scenario.server === api) peakApiRss = Math.max(peakApiRss, statusMiB(server.pid!, 'VmHWM'));
    const floorRate = floors[scenario.group];
    const ratio = !scenario.isFloor && floorRate ? `  ${(imported.leadsPerSecond / floorRate).toFixed(2)}x floor` : '';
    const failures = imported.failed.length ? `, ${imported.failed.length} NOT 201: ${[...new Set(imported.failed)].join('; ')}` : '';
    console.log(
      `${scenario.name.padEnd(36)} ${imported.leadsPerSecond.toFixed(0).padStart(8)} leads/s  alone ${alone.toFixed(0).padStart(5)} ms${ratio}  (${imported.calls} calls${failures})`,
    );
    noteStoreRss();
    await server.stop();
    await database.stop();
    continue;
  }

  const figures = await loadWithKeys({
    url,
    method: scenario.method,
    body: scenario.body,
    keys: scenarioKeys,
    limitPerMinute: scenario.limit,
    connections,
    seconds,
  });
  if (scenario.isFloor) floors[scenario.group] = figures.rps;
  if (scenario.server === api) peakApiRss = Math.max(peakApiRss, statusMiB(server.pid!, 'VmHWM'));
  const floorRps = floors[scenario.group];
  const ratio = !scenario.isFloor && floorRps ? `  ${(figures.rps / floorRps).toFixed(2)}x floor` : '';
  console.log(formatFigures(scenario.name, figures, `  alone ${alone.toFixed(0).padStart(5)} ms${ratio}`));
  noteStoreRss();
  await server.stop();
  await database.stop();
}

console.log(
  `\n${leadCount} leads, ${connections} connections, ${seconds} s per scenario, ${keysPerScenario} keys per authenticated scenario at ${rateLimitPerMinute}/min (unless its line says otherwise), store: ${store.name}`,
);
console.log(
  `API process peak RSS ${peakApiRss.toFixed(0)} MiB${peakStoreRss ? `, embedded FerretDB peak RSS ${peakStoreRss.toFixed(0)} MiB` : ''}`,
);
store.remove();
