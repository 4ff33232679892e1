/**
 * The lead export (GET /api/leads/export) at 100,000 leads in one
 * workspace: its time, and the API process's RSS growth while it streams
 * (sampled every 20 ms from /proc; the export must stay under 100 MB),
 * beside a floor measured in the same run: the bench process reading the
 * same leads with a raw driver cursor (same filter and order) through
 * csv-stringify into a sink, no HTTP, no admission, no mongoose.
 *
 *   npm run bench:export                      # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:export
 *   BENCH_LEADS=10000 npm run bench:export    # another size
 */
import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import mongoose from 'mongoose';
import { coreFields, leadExportColumns } from '../schema/leads.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { freePort, startService } from '../test/support/processes.ts';
import { statusMiB } from './support-process.ts';
import { benchStore, createKeys, seedLeads } from './support-store.ts';

const leadCount = Number(process.env.BENCH_LEADS ?? 100_000);
const store = benchStore('export');
const rssLimitMiB = 100;

const rssMiB = (pid: number | undefined) => statusMiB(pid ?? 'self', 'VmRSS');

/** Samples a process's RSS every 20 ms until stopped; answers the highest seen. */
function sampleRss(pid: number | undefined) {
  let peak = rssMiB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 20);
  return () => (clearInterval(timer), Math.max(peak, rssMiB(pid)));
}

/** Counts bytes and lines of a stream it discards. */
function countingSink() {
  const counts = { bytes: 0, lines: 0 };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      counts.bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) counts.lines++;
      done();
    },
  });
  return { sink, counts };
}

async function seed() {
  const { uri, stop } = await store.open();
  await connectDatabase(uri);
  const workspace = await createWorkspace({ name: 'Bench', plan: 'business', email: 'bench@example.test' });
  console.log(`seeding ${leadCount} leads through the import service (500 per call)...`);
  const elapsed = await seedLeads(workspace.workspaceId, 0, leadCount);
  console.log(`seeded in ${elapsed.toFixed(1)} s (${Math.round(leadCount / elapsed)} leads/s)\n`);
  const [key] = await createKeys(workspace.workspaceId, 1, 'export');
  await disconnectDatabase();
  await stop();
  return { workspaceId: workspace.workspaceId, key: key! };
}

/** The floor: the same leads, filter and order through a raw driver cursor and csv-stringify, in this process. */
async function floor(workspaceId: string) {
  const customKeys = ['segment'];
  const cursor = mongoose.connection
    .getClient()
    .db()
    .collection('leads')
    .find({ workspaceId, archivedAt: null }, { batchSize: 1000 })
    .sort({ createdAt: -1, _id: -1 });
  const rows = cursor.map((doc) => [
    doc._id,
    ...coreFields.map((f) => doc[f] ?? null),
    doc.score ?? null,
    doc.status,
    doc.email_status ?? null,
    doc.createdAt.toISOString(),
    ...customKeys.map((k) => doc.custom?.[k] ?? null),
  ]);
  const { sink, counts } = countingSink();
  const before = rssMiB(undefined);
  const peak = sampleRss(undefined);
  const started = performance.now();
  await pipeline(rows.stream(), stringify({ header: true, columns: [...leadExportColumns, ...customKeys] }), sink);
  return { seconds: (performance.now() - started) / 1000, growth: peak() - before, ...counts };
}

const { workspaceId, key } = await seed();
const database = await store.open();
const port = await freePort();
const env = { MONGODB_URI: database.uri, SECRETS_KEY: randomBytes(32).toString('base64'), PORT: String(port), LOG_LEVEL: 'warn' };
const api = await startService(process.execPath, ['src/main.ts', 'api'], env, `http://127.0.0.1:${port}/healthz`, 120_000);
await connectDatabase(database.uri);
try {
  const exportUrl = `http://127.0.0.1:${port}/api/leads/export`;
  const headers = { authorization: `Bearer ${key}` };
  // Warm-up: a first export that matches nothing loads the route's code before the baseline is taken.
  await (await fetch(`${exportUrl}?q=nobody-at-all`, { headers })).text();

  const firstFloor = await floor(workspaceId);
  const before = rssMiB(api.pid);
  const peak = sampleRss(api.pid);
  const started = performance.now();
  const response = await fetch(exportUrl, { headers });
  if (response.status !== 200) throw new Error(`export answered ${response.status}: ${await response.text()}`);
  const { sink, counts } = countingSink();
  await pipeline(Readable.fromWeb(response.body as ReadableStream), sink);
  const seconds = (performance.now() - started) / 1000;
  const growth = peak() - before;
  const secondFloor = await floor(workspaceId);
  const best = firstFloor.seconds <= secondFloor.seconds ? firstFloor : secondFloor;

  const line = (name: string, s: number, rows: number, bytes: number, extra: string) =>
    `${name.padEnd(44)} ${s.toFixed(2).padStart(6)} s  ${Math.round(rows / s)
      .toString()
      .padStart(7)} rows/s  ${(bytes / 1024 / 1024).toFixed(1).padStart(5)} MiB  ${extra}`;
  console.log(
    line(
      'floor  driver cursor → csv-stringify (best of 2)',
      best.seconds,
      best.lines - 1,
      best.bytes,
      `RSS growth ${best.growth.toFixed(1)} MiB (bench process)`,
    ),
  );
  console.log(
    line(
      'REST   GET /api/leads/export',
      seconds,
      counts.lines - 1,
      counts.bytes,
      `API RSS ${before.toFixed(0)} → peak ${(before + growth).toFixed(0)} MiB, growth ${growth.toFixed(1)} MiB (limit ${rssLimitMiB})  ${(seconds / best.seconds).toFixed(2)}x floor time`,
    ),
  );
  if (counts.lines - 1 !== leadCount) throw new Error(`exported ${counts.lines - 1} rows of ${leadCount}`);
  if (growth >= rssLimitMiB) throw new Error(`API RSS grew ${growth.toFixed(1)} MiB, over ${rssLimitMiB} MiB`);
  console.log(`\n${leadCount} leads, store: ${store.name}`);
} finally {
  await disconnectDatabase();
  await api.stop();
  await database.stop();
  store.remove();
}
