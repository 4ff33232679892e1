/**
 * Database round trips one authenticated request makes, for GET /api/user
 * and GET /api/leads?limit=100: the real API server in this process (on a
 * free 127.0.0.1 port), the driver's command monitoring counting every
 * command it sends, broken down by collection.command.
 *
 *   npm run bench:round-trips                # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:round-trips
 *   BENCH_REQUESTS=20 BENCH_LEADS=1000 …     # requests per case, leads seeded
 *
 * Each endpoint is measured in two cases, N requests each, one per fresh
 * key, sequentially after a few warm-up requests: a key's first request in
 * a minute (no rate-limit window yet, lastUsedAt due) and the same keys'
 * next request (window present, lastUsedAt fresh). Commands a request
 * leaves running (the lastUsedAt write) are counted too: each case waits
 * for them to finish. "in sequence" counts the steps the request waited
 * through one after another: a command starts a new step when some command
 * has finished since the previous one started (commands sent together, as
 * by Promise.all, share a step). The team aims for at most three round
 * trips per request; this only measures.
 */
import type { AddressInfo } from 'node:net';
import type { CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';
import { loadConfig } from '../src/config.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { createApiServer } from '../src/http/server.ts';
import { setLogLevel } from '../src/logger.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { rateLimitPerMinute } from './support-load.ts';
import { benchStore, createKeys, seedLeads, sleep, withUriOption } from './support-store.ts';

const requestsPerCase = Number(process.env.BENCH_REQUESTS ?? 20);
const leadCount = Number(process.env.BENCH_LEADS ?? 1000);
const paths = ['/api/user', '/api/leads?limit=100'];

const store = benchStore('bench-round-trips');
const database = await store.open();
setLogLevel('warn');
await connectDatabase(withUriOption(database.uri, 'monitorCommands=true'));
const workspace = await createWorkspace({ name: 'Bench', plan: 'business', email: 'bench@example.test' });
await seedLeads(workspace.workspaceId, 0, leadCount);

// Every command the process sends from here on, with whether it starts a new step.
let commands: { name: string; sequential: boolean }[] = [];
let inFlight = 0;
let finishedSinceLastStart = true;
const client = mongoose.connection.getClient();
client.on('commandStarted', (event: CommandStartedEvent) => {
  const target = event.commandName === 'getMore' ? event.command.collection : event.command[event.commandName];
  commands.push({ name: `${typeof target === 'string' ? target : '-'}.${event.commandName}`, sequential: finishedSinceLastStart });
  finishedSinceLastStart = false;
  inFlight++;
});
const finished = () => {
  inFlight--;
  finishedSinceLastStart = true;
};
client.on('commandSucceeded', finished);
client.on('commandFailed', finished);

const server = createApiServer(
  loadConfig({ MONGODB_URI: database.uri, PORT: '0', RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute), LOG_LEVEL: 'warn' }),
);
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function call(path: string, key: string) {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
}

/** Runs `keys.length` requests one after another and returns the commands they sent, once all have finished. */
async function measure(path: string, keys: string[]) {
  while (inFlight) await sleep(10);
  commands = [];
  finishedSinceLastStart = true;
  for (const key of keys) await call(path, key);
  await sleep(200);
  while (inFlight) await sleep(10);
  return commands;
}

function report(label: string, sent: { name: string; sequential: boolean }[]) {
  const per = (n: number) => (n / requestsPerCase).toFixed(2).replace(/\.00$/, '');
  const byName = new Map<string, number>();
  for (const { name } of sent) byName.set(name, (byName.get(name) ?? 0) + 1);
  const breakdown = [...byName].sort(([a], [b]) => a.localeCompare(b)).map(([name, n]) => `${name} ${per(n)}`);
  const sequential = sent.filter((c) => c.sequential).length;
  console.log(`${label.padEnd(56)} ${per(sent.length).padStart(5)} round trips/request (${per(sequential)} in sequence)`);
  console.log(`${''.padEnd(56)}   ${breakdown.join(', ')}`);
}

for (const path of paths) {
  const [warmKey, ...keys] = await createKeys(workspace.workspaceId, requestsPerCase + 1, `round trips ${path}`);
  for (let i = 0; i < 3; i++) await call(path, warmKey!);
  report(`GET ${path}  key's first request in a minute`, await measure(path, keys));
  report(`GET ${path}  the same key's next request`, await measure(path, keys));
}
console.log(`\n${requestsPerCase} requests per case, ${leadCount} leads, rate limit ${rateLimitPerMinute}/min, store: ${store.name}`);

server.closeAllConnections();
await new Promise<void>((done) => server.close(() => done()));
await disconnectDatabase();
await database.stop();
store.remove();
