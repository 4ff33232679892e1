/**
 * Tracked links (`GET /c/<token>`, campaigns with `track_clicks`) against a
 * bare node:http server answering the same 302, at 32 connections: the
 * service checks each token's signature and answers through its one front
 * door (request id, log line, metrics), and records every click after the
 * answer, with a few writes per group of clicks. The floor is measured
 * before and after the service (bench/support-floors.ts), all in this
 * process, as autocannon is; req/s, p50 and p99 of each.
 *
 *   npm run bench:clicks                     # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:clicks
 *   BENCH_SECONDS=10 BENCH_MESSAGES=2000 …   # another length, another number of messages clicked
 *
 * BENCH_MESSAGES (default 1,000) sent messages of a campaign are stored, each
 * with two tracked links; the load spreads its GETs over their tokens in
 * turn. After the load, the bench waits for every click to be stored and
 * prints how long that took, and how many links were clicked first (counted
 * once each in the statistics).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import autocannon from 'autocannon';
import mongoose from 'mongoose';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { setLogLevel } from '../src/logger.ts';
import { clickUrl } from '../src/outreach/delivery/links.ts';
import { freePort } from '../test/support/processes.ts';
import { inProcessApi } from './support-api.ts';
import { benchStore } from './support-store.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const messages = Number(process.env.BENCH_MESSAGES ?? 1_000);
const connections = 32;
const destinations = ['https://acme.test/pricing?plan=pro&seats=5', 'https://acme.test/case-studies/northwind'];

const store = benchStore('bench-clicks');
const database = await store.open();
setLogLevel('warn');
await connectDatabase(database.uri);
// The tokens below are signed under this configuration's key, as the service checks them.
const { server: service, base } = await inProcessApi(database.uri);

/** Sent messages of one campaign, as the sending engine stores them (the clicks name them). */
async function seedMessages(): Promise<string[]> {
  const db = mongoose.connection.db!;
  const [campaignId, workspaceId, brandId, inboxId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const at = new Date();
  const ids = Array.from({ length: messages }, () => `${campaignId}:${randomUUID()}:0`);
  await db.collection('outreach_messages').insertMany(
    ids.map((id, n) => ({
      _id: id as never,
      workspaceId,
      brandId,
      campaignId,
      enrollmentId: id.slice(0, -2),
      leadId: id.split(':')[1],
      inboxId,
      step: 0,
      variant: 0,
      to: `person${n}@bench.test`,
      subject: 'Hello',
      messageId: `<${randomUUID()}@bench.test>`,
      inReplyTo: null,
      status: 'sent',
      attempts: 1,
      sentAt: at,
      openedAt: null,
      createdAt: at,
      updatedAt: at,
    })),
  );
  return ids;
}

/** The floor: node:http answering every request with a 302 to one address, and nothing else. */
async function startFloor(): Promise<{ url: string; close: () => void }> {
  const floor = createServer((_req, res) => {
    res.writeHead(302, { Location: destinations[0], 'Cache-Control': 'no-store' });
    res.end();
  });
  const floorPort = await freePort();
  await new Promise<void>((done) => floor.listen(floorPort, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${floorPort}`, close: () => (floor.closeAllConnections(), floor.close()) };
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  redirects: number;
  other: number;
}

/** GETs spread over `paths` in turn, for the bench's seconds; only 302 answers count as served. */
async function load(origin: string, paths: string[]): Promise<Figures> {
  let next = 0;
  const result = await autocannon({
    url: origin,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (request: { path?: string }) => ({ ...request, path: paths[next++ % paths.length] }) }] as never,
  });
  const redirects = result['3xx'];
  return {
    rps: redirects / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    redirects,
    other: result['1xx'] + result['2xx'] + result['4xx'] + result['5xx'] + result.errors + result.timeouts,
  };
}

const line = (name: string, f: Figures, extra = '') =>
  console.log(
    `${name.padEnd(34)} ${f.rps.toFixed(0).padStart(7)} req/s  p50 ${String(f.p50).padStart(4)} ms  p99 ${String(f.p99).padStart(4)} ms  (${f.redirects} redirects${f.other ? `, ${f.other} NOT 302` : ''})${extra}`,
  );

try {
  console.log(
    `store: ${store.name}; ${messages} messages with ${destinations.length} tracked links each; ${connections} connections, ${seconds} s a phase`,
  );
  const ids = await seedMessages();
  const paths = ids.flatMap((id) => destinations.map((url) => new URL(clickUrl(id, url)).pathname));
  const floor = await startFloor();
  const before = await load(floor.url, paths);
  line('floor: node:http 302', before);
  const tracked = await load(base, paths);
  const after = await load(floor.url, paths);
  const ratio = tracked.rps / ((before.rps + after.rps) / 2);
  line('tracked redirects GET /c/{token}', tracked, `  ${ratio.toFixed(2)}× the floors`);
  line('floor again', after);
  floor.close();

  // Every click is recorded after its answer: how long the store takes to catch up.
  const clicks = mongoose.connection.db!.collection('outreach_clicks');
  const waitStarted = performance.now();
  while ((await clicks.estimatedDocumentCount()) < tracked.redirects) {
    if (performance.now() - waitStarted > 120_000) throw new Error('the clicks were not all stored within 2 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stored = await clicks.countDocuments({});
  const first = await clicks.countDocuments({ first: true });
  console.log(
    `clicks stored: ${stored} of ${tracked.redirects}, ${((performance.now() - waitStarted) / 1000).toFixed(1)} s after the load ended; ${first} first clicks (unique: message and link)`,
  );
  console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
} finally {
  service.closeAllConnections();
  service.close();
  await disconnectDatabase();
  await database.stop();
  store.remove();
}
process.exit(0);
