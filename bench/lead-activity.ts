/**
 * A lead's activity (GET /api/leads/{id}/activity): the first page of a lead with BENCH_ENTRIES entries (1,000 by
 * default), among BENCH_OTHER_LEADS other leads with as many each, against its target of 50 ms. Beside it, in the same
 * run, two floors: GET /api/leads/{id} (the same credential, rate limit and lead read, and no activity) and the page's
 * own query on the raw mongodb driver (the index read the route stands on). Each: one request alone at a time, median
 * and p95 of BENCH_REPEATS after a warm-up, a fresh key per series of 50 (the default rate limit is 60 a minute).
 *
 *   npm run bench:lead-activity
 *   BENCH_ENTRIES=1000 BENCH_OTHER_LEADS=20 BENCH_REPEATS=20 npm run bench:lead-activity
 *   MONGODB_URI=mongodb://… npm run bench:lead-activity
 *
 * The entries are written with the writer every flow uses (recordLeadActivity), in batches of 500 as the sending
 * engine writes a chunk's. The store runs as its own process (FerretDB in a temp dir); all on 127.0.0.1.
 */
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { leadActivityTypes } from '../schema/lead-activity.ts';
import { loadConfig } from '../src/config.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { createApiServer } from '../src/http/server.ts';
import { setLogLevel } from '../src/logger.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { importLeads } from '../src/leads/lead-import.service.ts';
import { recordLeadActivity } from '../src/leads/index.ts';
import { rateLimitPerMinute } from './support-load.ts';
import { benchStore, createKeys, median } from './support-store.ts';

const entries = Number(process.env.BENCH_ENTRIES ?? 1000);
const otherLeads = Number(process.env.BENCH_OTHER_LEADS ?? 50);
const repeats = Number(process.env.BENCH_REPEATS ?? 100);
const targetMs = 50;

const store = benchStore('bench-activity');
const database = await store.open();
setLogLevel('warn');
await connectDatabase(database.uri);
const { workspaceId } = await createWorkspace({ name: 'Activity', plan: 'business', email: 'activity@example.test' });
const server = createApiServer(
  loadConfig({ MONGODB_URI: database.uri, PORT: '0', RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute), LOG_LEVEL: 'warn' }),
);
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const { leads } = await importLeads(workspaceId, {
  leads: Array.from({ length: otherLeads + 1 }, (_, n) => ({ email: `person${n}@activity.test` })),
});
const seedStarted = performance.now();
const start = Date.now() - entries * 60_000;
for (const lead of leads) {
  for (let from = 0; from < entries; from += 500) {
    await recordLeadActivity(
      Array.from({ length: Math.min(500, entries - from) }, (_, i) => ({
        id: `${lead.id}:bench:${from + i}`,
        workspaceId,
        leadId: lead.id,
        type: leadActivityTypes[(from + i) % leadActivityTypes.length]!,
        at: new Date(start + (from + i) * 60_000),
        campaignId: workspaceId,
        messageId: `${workspaceId}:${lead.id}:${(from + i) % 10}`,
        step: (from + i) % 10,
        variant: 0,
        data: { note: 'bench' },
      })),
    );
  }
}
const seeded = leads.length * entries;
console.log(`wrote ${seeded.toLocaleString('en-US')} entries in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
const lead = leads[0]!;

/** Milliseconds of each of `times` runs of `task`. */
async function samples(times: number, task: () => Promise<unknown>) {
  await task();
  const taken: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await task();
    taken.push(performance.now() - started);
  }
  return taken;
}

/** GET `path` alone, a fresh key per 50 requests (under the default rate limit). */
async function apiSamples(path: string, check: (body: any) => void) {
  const keys = await createKeys(workspaceId, Math.ceil((repeats + 1) / 50), `activity ${path}`);
  let sent = 0;
  return samples(repeats, async () => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${keys[Math.floor(sent++ / 50)]}` } });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(body)}`);
    check(body);
  });
}

const raw = await new MongoClient(database.uri).connect();
const page = await apiSamples(`/api/leads/${lead.id}/activity?limit=50`, (body) => {
  if (body.activity.length !== 50 || !body.next_cursor) throw new Error('the first page is not 50 entries with a next page');
});
const leadRead = await apiSamples(`/api/leads/${lead.id}`, () => undefined);
const query = await samples(repeats, () =>
  raw.db().collection('lead_activity').find({ leadId: lead.id }).sort({ at: -1, _id: -1 }).limit(51).toArray(),
);

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))]!;
const ms = (value: number) => `${value.toFixed(2)} ms`.padStart(10);
const row = (name: string, values: number[]) => `${name.padEnd(44)}${ms(median(values))}${ms(p95(values))}`;
console.log(
  `\nstore: ${store.name}; ${entries.toLocaleString('en-US')} entries for the lead, ${seeded.toLocaleString('en-US')} in all; median and p95 of ${repeats} requests alone`,
);
console.log(`${''.padEnd(44)}${'median'.padStart(10)}${'p95'.padStart(10)}`);
console.log(row('GET /api/leads/{id}/activity?limit=50', page));
console.log(row('floor: GET /api/leads/{id}', leadRead));
console.log(row('floor: the page query, raw driver', query));
const verdict = median(page) <= targetMs ? 'within' : 'OVER';
console.log(
  `first page ${verdict} its ${targetMs} ms target (median); over GET /api/leads/{id}: ${(median(page) / median(leadRead)).toFixed(2)}×`,
);
const explained = (await raw.db().collection('lead_activity').find({ leadId: lead.id }).sort({ at: -1, _id: -1 }).limit(51).explain()) as {
  queryPlanner?: { Plan?: string[]; winningPlan?: { stage?: string } };
};
console.log(`plan of the page query: ${explained.queryPlanner?.Plan?.join('; ') ?? explained.queryPlanner?.winningPlan?.stage ?? 'n/a'}`);

server.closeAllConnections();
await new Promise<void>((done) => server.close(() => done()));
await raw.close();
await disconnectDatabase();
await database.stop();
store.remove();
