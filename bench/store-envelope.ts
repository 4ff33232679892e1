/**
 * The store's envelope, for the README: how latency grows with collection
 * size on the embedded FerretDB (or on MONGODB_URI when set).
 *
 *   npm run bench:store-envelope             # 1,000, 10,000 and 100,000
 *   BENCH_SIZES=1000,5000 BENCH_REPEATS=3 BENCH_OP_REPEATS=20 npm run bench:store-envelope
 *   MONGODB_URI=mongodb://… npm run bench:store-envelope
 *
 * At each size, one workspace grown to that many leads through the import
 * service (500 per call):
 *   (a) lead list latency, one request alone at a time, median of
 *       BENCH_REPEATS after one warm-up: REST GET /api/leads?limit=100, the
 *       same with a `q` search and filtered by status, and the capacity,
 *       through the real API server in this process on a 127.0.0.1 port,
 *       with a fresh key per series at the default rate limit;
 *   (b) single-document latency on a plain collection (`envelope_docs`,
 *       lead-shaped documents, only the _id index) grown to the same size
 *       in the same database, with the raw mongodb driver: findOne by _id,
 *       updateOne by _id ($set) and insertOne, median of BENCH_OP_REPEATS,
 *       each on a random document.
 * The store runs as its own process (FerretDB in a temp dir); all on
 * 127.0.0.1.
 */
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { loadConfig } from '../src/config.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { createApiServer } from '../src/http/server.ts';
import { setLogLevel } from '../src/logger.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { rateLimitPerMinute } from './support-load.ts';
import { benchStore, createKeys, median, searchTerm, seedLeads } from './support-store.ts';

const sizes = (process.env.BENCH_SIZES ?? '1000,10000,100000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const repeats = Number(process.env.BENCH_REPEATS ?? 3);
const opRepeats = Number(process.env.BENCH_OP_REPEATS ?? 20);
if (repeats + 1 > rateLimitPerMinute) throw new Error(`BENCH_REPEATS must stay under ${rateLimitPerMinute} (one key per series)`);

const store = benchStore('bench-envelope');
const database = await store.open();
setLogLevel('warn');
await connectDatabase(database.uri);
const workspace = await createWorkspace({ name: 'Envelope', plan: 'business', email: 'envelope@example.test' });
const server = createApiServer(
  loadConfig({ MONGODB_URI: database.uri, PORT: '0', RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute), LOG_LEVEL: 'warn' }),
);
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const raw = await new MongoClient(database.uri).connect();
const docs = raw.db().collection<{ _id: string; [field: string]: unknown }>('envelope_docs');
const docId = (n: number) => `doc-${String(n).padStart(9, '0')}`;
const leadShaped = (n: number) => ({
  _id: docId(n),
  workspaceId: workspace.workspaceId,
  company: `Company ${n}`,
  fullName: `Person ${n}`,
  email: `person${n}@company${n % 5000}.test`,
  domain: `company${n % 5000}.test`,
  title: 'Head of Growth',
  status: 'new',
  custom: { segment: `s${n % 7}` },
  searchText: `company ${n} person ${n} person${n}@company${n % 5000}.test`,
  archivedAt: null,
  createdAt: new Date(),
  updatedAt: new Date(),
});

/** Milliseconds `task` takes, median of `times` runs. */
async function timed(times: number, task: (i: number) => Promise<unknown>) {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await task(i);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** Median latency of GET `path` alone, after one warm-up request, on a fresh key. */
async function listLatency(path: string) {
  const [key] = await createKeys(workspace.workspaceId, 1, `envelope ${path}`);
  const get = async () => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  };
  await get();
  return timed(repeats, get);
}

const randomBelow = (n: number) => Math.floor(Math.random() * n);
const rows: string[] = [];
let leads = 0;
let stored = 0;
let inserted = 0;
for (const size of sizes) {
  const seedSeconds = await seedLeads(workspace.workspaceId, leads, size);
  const importRate = (size - leads) / seedSeconds;
  console.log(`grew the workspace from ${leads} to ${size} leads in ${seedSeconds.toFixed(1)} s`);
  leads = size;
  for (; stored < size; stored += 1000)
    await docs.insertMany(Array.from({ length: Math.min(1000, size - stored) }, (_, i) => leadShaped(stored + i)));
  stored = size;

  const list = await listLatency('/api/leads?limit=100');
  const search = await listLatency(`/api/leads?q=${searchTerm}&limit=100`);
  const filtered = await listLatency('/api/leads?status=new&limit=100');
  const capacity = await listLatency('/api/leads/capacity');
  const find = await timed(opRepeats, () => docs.findOne({ _id: docId(randomBelow(size)) }));
  const update = await timed(opRepeats, (i) =>
    docs.updateOne({ _id: docId(randomBelow(size)) }, { $set: { status: i % 2 ? 'contacted' : 'new', updatedAt: new Date() } }),
  );
  const insert = await timed(opRepeats, () => docs.insertOne({ ...leadShaped(0), _id: `extra-${inserted++}` }));
  const ms = (value: number, width: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`.padStart(width);
  rows.push(
    `${size.toLocaleString('en-US').padStart(9)}  ${ms(list, 12)}  ${ms(search, 12)}  ${ms(filtered, 12)}  ${ms(capacity, 10)}  ${ms(find, 10)}  ${ms(update, 10)}  ${ms(insert, 10)}  ${Math.round(importRate).toString().padStart(8)}`,
  );
  console.log(rows.at(-1));
}

console.log(
  `\nstore: ${store.name}; lead lists and capacity: median of ${repeats} requests alone, REST over 127.0.0.1; single documents: median of ${opRepeats}, raw driver; import/s: leads a second through the import service while growing`,
);
console.log(
  `${'docs'.padStart(9)}  ${'list ?limit'.padStart(12)}  ${'list ?q'.padStart(12)}  ${'?status'.padStart(12)}  ${'capacity'.padStart(10)}  ${'findById'.padStart(10)}  ${'updateOne'.padStart(10)}  ${'insertOne'.padStart(10)}  ${'import/s'.padStart(8)}`,
);
for (const row of rows) console.log(row);
// How the store answers a find by _id (FerretDB reports its SQLite plan: SEARCH uses an index, SCAN reads the table).
const explained = (await docs.find({ _id: docId(0) }).explain()) as {
  queryPlanner?: { Plan?: string[]; winningPlan?: { stage?: string } };
};
console.log(`plan of a find by _id: ${explained.queryPlanner?.Plan?.join('; ') ?? explained.queryPlanner?.winningPlan?.stage ?? 'n/a'}`);

server.closeAllConnections();
await new Promise<void>((done) => server.close(() => done()));
await raw.close();
await disconnectDatabase();
await database.stop();
store.remove();
