/**
 * Webhook delivery throughput: BENCH_EVENTS (default 10,000) events emitted
 * onto the outbox, each delivered to one endpoint (a receiver on
 * 127.0.0.1) by the worker in this process: fan-out, signing, the guarded
 * POST, one attempt record. The floor POSTs the same signed bodies to the
 * same receiver directly, as many at once as the worker runs jobs, before
 * the service and again after it: the service is compared with both
 * (bench/support-floors.ts). The
 * process runs with the flags of `npm run worker` (the worker runs in it).
 *
 *   npm run bench:webhooks                    # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:webhooks
 *   BENCH_PROFILE=1 …                         # also: database commands per event, by collection and command
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWorker } from '../src/worker/worker.ts';
import { loadConfig, settings } from '../src/config.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { emitEvent } from '../src/events/events.service.ts';
import { sendWebhook } from '../src/webhooks/send-webhook.ts';
import { createWebhook } from '../src/webhooks/webhooks.service.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { againstFloors } from './support-floors.ts';
import { runWithWorkerFlags } from './support-process.ts';
import { benchStore, printCommandProfile, watchCommands, withUriOption } from './support-store.ts';

runWithWorkerFlags();

const eventCount = Number(process.env.BENCH_EVENTS ?? 10_000);
const concurrency = Number(process.env.WORKER_CONCURRENCY ?? 5);
const profile = process.env.BENCH_PROFILE === '1';

const arrivals = new Map<string, number>();
let onArrival = () => {};
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    arrivals.set(String(req.headers['webhook-id']), performance.now());
    res.writeHead(204).end();
    onArrival();
  });
});
await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const store = benchStore('webhooks');
const { uri, stop } = await store.open();
loadConfig({
  MONGODB_URI: uri,
  SECRETS_KEY: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'warn',
  OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1',
  WORKER_CONCURRENCY: String(concurrency),
});
await connectDatabase(profile ? withUriOption(uri, 'monitorCommands=true') : uri);
const commandTimes = profile ? watchCommands() : null;

const allArrived = (count: number) =>
  new Promise<void>((done) => {
    onArrival = () => arrivals.size >= count && done();
    onArrival();
  });
const percentile = (values: number[], p: number) =>
  values.sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

// The floor: the same signed POSTs, `concurrency` at a time, nothing stored.
const secret = `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({
  type: 'webhook.test',
  timestamp: new Date().toISOString(),
  data: { webhook_id: 'floor', message: 'x'.repeat(64) },
});
/** Seconds the floor takes to deliver `count` POSTs. */
async function floor(tag: string, count = eventCount): Promise<number> {
  let next = 0;
  const floorStarted = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let n = next++; n < count; n = next++) await sendWebhook(url, { id: `${tag}-${n}`, secrets: [secret] }, body);
    }),
  );
  arrivals.clear();
  return (performance.now() - floorStarted) / 1000;
}
// Unmeasured: the first POSTs of a process run while V8 still compiles their code (a deployed worker is long warm).
await floor('warm-up', 1_000);
const floorBefore = await floor('floor');

// The service: events emitted as fast as the outbox takes them, delivered by the worker.
const workspace = await createWorkspace({ name: 'Webhooks', plan: 'business', email: 'webhooks@bench.test' });
const { webhook } = await createWebhook(workspace.workspaceId, { url, events: ['*'], description: 'bench' });
const worker = await startWorker({ concurrency: settings().WORKER_CONCURRENCY });
commandTimes?.clear();
const emittedAt = new Map<string, number>();
const started = performance.now();
let peakRss = process.memoryUsage.rss();
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
// As many emitters at once as POSTs go out at once (requests and jobs emit side by side in a service).
let nextEvent = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let n = nextEvent++; n < eventCount; n = nextEvent++) {
      const at = performance.now();
      const id = await emitEvent(workspace.workspaceId, 'webhook.test', { webhook_id: webhook.id, message: `event ${n}` }, `bench-${n}`);
      emittedAt.set(id, at);
    }
  }),
);
const emitSeconds = (performance.now() - started) / 1000;
await allArrived(eventCount);
clearInterval(sampler);
const seconds = (performance.now() - started) / 1000;
const delays = [...emittedAt].map(([id, at]) => arrivals.get(id)! - at);
await worker.stop();
const floorAfter = await floor('floor-again');
const floorLine = (name: string, floorSeconds: number) =>
  console.log(
    `${name.padEnd(37)} ${eventCount} deliveries  ${floorSeconds.toFixed(1)} s  ${(eventCount / floorSeconds).toFixed(0)} deliveries/s`,
  );

floorLine(`floor (signed POSTs, ${concurrency} at once)`, floorBefore);
console.log(
  `service (outbox → fan-out → deliver)  ${eventCount} deliveries  ${seconds.toFixed(1)} s  ${(eventCount / seconds).toFixed(0)} deliveries/s  ` +
    `(events emitted in ${emitSeconds.toFixed(1)} s)  delay event → delivery p50 ${percentile(delays, 0.5).toFixed(0)} ms, p99 ${percentile(delays, 0.99).toFixed(0)} ms  ` +
    `peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB  ${againstFloors(seconds, [floorBefore, floorAfter]).toFixed(2)}x the floors`,
);
floorLine('floor again', floorAfter);
console.log(`store: ${store.name}; worker concurrency ${concurrency}`);
if (commandTimes) printCommandProfile(commandTimes, eventCount, 'event');

receiver.close();
await disconnectDatabase();
await stop();
store.remove();
// Agenda leaves its timers for jobs due later (the hourly prunes, the outreach ticks) after the worker stops.
process.exit(0);
