/**
 * Email finder throughput: lookups (a name at a domain) through the finder's service (the domain's known pattern
 * read from the store, the balance checked, candidates asked of the mail server, a credit charged) against a floor of
 * the same DNS lookups and SMTP conversations with the same concurrency and nothing else, in one run, against the
 * same mail hosts (bench/support-finder-world.ts, its own process, on loopback).
 *
 *   npm run bench:find-email                  # embedded FerretDB in a temp dir
 *   BENCH_LOOKUPS=1000 BENCH_DOMAINS=50 BENCH_RCPT_DELAY_MS=20 BENCH_AT_ONCE=20 …
 *
 * Each mail host answers RCPT TO after BENCH_RCPT_DELAY_MS. A lookup's candidates share one connection (the made-up
 * address first, then the candidates until one is accepted): the connections each host saw are counted per lookup.
 * The floor runs before the service and again after it (bench/support-floors.ts).
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWorkspace } from '../src/account/account.service.ts';
import { loadConfig } from '../src/config.ts';
import { setBalances } from '../src/credits/credits.service.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { createHostSlots } from '../src/net/host-slots.ts';
import { mailHosts } from '../src/validation/checks/mail-hosts.ts';
import { SmtpProbe } from '../src/validation/checks/smtp-probe.ts';
import { candidates } from '../src/validation/finder/candidates.ts';
import { findEmail } from '../src/validation/finder/email-finder.service.ts';
import { probeOptions } from '../src/validation/run/domain-check.ts';
import { againstFloors } from './support-floors.ts';
import { finderDomain, personName } from './support-finder-world.ts';
import { benchStore } from './support-store.ts';

const lookupCount = Number(process.env.BENCH_LOOKUPS ?? 1_000);
const domainCount = Number(process.env.BENCH_DOMAINS ?? 50);
const people = Number(process.env.BENCH_PEOPLE ?? 40);
const atOnce = Number(process.env.BENCH_AT_ONCE ?? 20);
const perMx = 2;

const world = fork(new URL('./support-finder-world.ts', import.meta.url), {
  env: { ...process.env, BENCH_DOMAINS: String(domainCount), BENCH_PEOPLE: String(people) },
});
world.once('exit', (code) => {
  console.error(`the mail world process exited (${code})`);
  process.exit(1);
});
const nextMessage = <T>() => new Promise<T>((resolve) => world.once('message', (message) => resolve(message as T)));
const { env } = await nextMessage<{ env: Record<string, string> }>();
async function connections(): Promise<{ total: number; peak: number }> {
  world.send('stats');
  const { totals } = await nextMessage<{ totals: Record<string, { total: number; peak: number }> }>();
  world.send('reset');
  await nextMessage();
  const all = Object.values(totals);
  return { total: all.reduce((sum, t) => sum + t.total, 0), peak: Math.max(...all.map((t) => t.peak)) };
}

const store = benchStore('find-email');
const { uri, stop } = await store.open();
loadConfig({
  ...env,
  SMTP_PROBE_TIMEOUT_MS: '10000',
  SMTP_PROBE_CONCURRENCY_PER_MX: String(perMx),
  MONGODB_URI: uri,
  SECRETS_KEY: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'warn',
});
await connectDatabase(uri);

/** Lookup n: person n % people at domain n % domains. */
const lookups = Array.from({ length: lookupCount }, (_, n) => {
  const { first, last } = personName(Math.floor(n / domainCount) % people);
  return { full_name: `${first} ${last}`, first, last, domain: finderDomain(n % domainCount) };
});

/** Runs `work` on every lookup, `atOnce` at a time; the seconds it took. */
async function timed(work: (lookup: (typeof lookups)[number]) => Promise<boolean>): Promise<{ seconds: number; found: number }> {
  const queue = [...lookups];
  let found = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) if (await work(next)) found++;
    }),
  );
  return { seconds: (performance.now() - started) / 1000, found };
}

/** The floor: the MX lookup, then one conversation: the made-up address, then the candidates until one is accepted. */
async function floor() {
  const slot = createHostSlots(() => perMx);
  const options = probeOptions();
  return timed(async ({ first, last, domain }) => {
    const found = await mailHosts(domain, { servers: [env.DNS_SERVERS!] });
    if (found.kind !== 'hosts') throw new Error(`${domain}: ${found.kind}`);
    const host = found.hosts[0]!;
    const release = await slot(host.host);
    const probe = await SmtpProbe.open(host, options);
    try {
      if ((await probe.check(`nx-floor@${domain}`)).kind === 'accepted') return true;
      for (const { email } of candidates({ first, last }, domain)) if ((await probe.check(email)).kind === 'accepted') return true;
      return false;
    } finally {
      await probe.close();
      release();
    }
  });
}

const workspace = await createWorkspace({ name: 'Finder', plan: 'business', email: 'finder@bench.test' });
await setBalances(workspace.workspaceId, { validation: lookupCount * 3 });
const service = () => timed(async (lookup) => (await findEmail(workspace.workspaceId, lookup)).email !== null);

const line = (label: string, run: { seconds: number; found: number }, seen: { total: number; peak: number }, extra = '') =>
  console.log(
    `${label.padEnd(30)} ${lookupCount} lookups, ${domainCount} domains  ${run.seconds.toFixed(1).padStart(6)} s  ` +
      `${(lookupCount / run.seconds).toFixed(0).padStart(5)} lookups/s  found ${run.found}  ` +
      `${(seen.total / lookupCount).toFixed(2)} connections a lookup, peak per MX ${seen.peak} (limit ${perMx})${extra}`,
  );

const floorRun = await floor();
line('floor (DNS + SMTP probes only)', floorRun, await connections());
const serviceRun = await service();
const serviceSeen = await connections();
const floorAgain = await floor();
line(
  'service (findEmail)',
  serviceRun,
  serviceSeen,
  `  ${againstFloors(serviceRun.seconds, [floorRun.seconds, floorAgain.seconds]).toFixed(2)}x the floors`,
);
line('floor again', floorAgain, await connections());
console.log(`store: ${store.name}; RCPT answered after ${process.env.BENCH_RCPT_DELAY_MS ?? 20} ms; ${atOnce} lookups at once`);

world.removeAllListeners('exit');
world.disconnect();
await disconnectDatabase();
await stop();
store.remove();
process.exit(0);
