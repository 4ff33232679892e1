/**
 * Email validation throughput: a validation job (work list, SMTP
 * conversations, one charge and one lead write per result, progress)
 * against a floor of the same DNS lookups and SMTP conversations with the
 * same concurrency and nothing else, in one run, against the same mail
 * hosts (bench/support-mail-world.ts, its own process, on loopback).
 *
 *   npm run bench:validate                    # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:validate
 *   BENCH_ADDRESSES=2000 BENCH_DOMAINS=50 BENCH_RCPT_DELAY_MS=20 …
 *   BENCH_PROFILE=1 …                         # also: the job's database commands per address
 *
 * Each mail host answers RCPT TO after BENCH_RCPT_DELAY_MS (real servers
 * take tens of milliseconds); the service's limit of
 * SMTP_PROBE_CONCURRENCY_PER_MX connections per host is checked against
 * what each host saw. The floor runs before the job and again after it;
 * the job is compared with both (bench/support-floors.ts). Peak RSS is sampled every 20 ms per
 * phase. The process runs with the flags of `npm run worker` (the worker
 * runs in it).
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startWorker } from '../src/worker/worker.ts';
import { loadConfig, settings } from '../src/config.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { setBalances } from '../src/credits/credits.service.ts';
import { createHostSlots } from '../src/net/host-slots.ts';
import { mailHosts } from '../src/validation/checks/mail-hosts.ts';
import { SmtpProbe } from '../src/validation/checks/smtp-probe.ts';
import { probeOptions } from '../src/validation/run/domain-check.ts';
import { getValidationJob, startValidation } from '../src/validation/validation.service.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { benchDomain } from './support-mail-world.ts';
import { againstFloors } from './support-floors.ts';
import { runWithWorkerFlags } from './support-process.ts';
import { benchStore, importInBatches, printCommandProfile, watchCommands, withUriOption } from './support-store.ts';

runWithWorkerFlags();

const addressCount = Number(process.env.BENCH_ADDRESSES ?? 2_000);
const domainCount = Number(process.env.BENCH_DOMAINS ?? 50);
const perMx = 2;
const domainsAtOnce = 20;

const world = fork(new URL('./support-mail-world.ts', import.meta.url), { env: { ...process.env, BENCH_DOMAINS: String(domainCount) } });
world.once('exit', (code) => {
  console.error(`the mail world process exited (${code})`);
  process.exit(1);
});
const nextMessage = <T>() => new Promise<T>((resolve) => world.once('message', (message) => resolve(message as T)));
const { env } = await nextMessage<{ env: Record<string, string> }>();
async function hostPeaks(): Promise<number[]> {
  world.send('stats');
  const { peaks } = await nextMessage<{ peaks: Record<string, { total: number; peak: number }> }>();
  world.send('reset');
  await nextMessage();
  return Object.values(peaks).map((p) => p.peak);
}

const store = benchStore('validate');
const { uri, stop } = await store.open();
loadConfig({
  ...env,
  SMTP_PROBE_TIMEOUT_MS: '10000',
  SMTP_PROBE_CONCURRENCY_PER_MX: String(perMx),
  VALIDATION_DOMAIN_CONCURRENCY: String(domainsAtOnce),
  MONGODB_URI: uri,
  SECRETS_KEY: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'warn',
});
const profile = process.env.BENCH_PROFILE === '1';
await connectDatabase(profile ? withUriOption(uri, 'monitorCommands=true') : uri);
const commandTimes = profile ? watchCommands() : null;

/** Address n: person<k> at domain n % domains, so every domain gets its share. */
const addresses = Array.from({ length: addressCount }, (_, n) => `person${Math.floor(n / domainCount)}@${benchDomain(n % domainCount)}`);

async function measured(work: () => Promise<void>): Promise<{ seconds: number; peakMb: number }> {
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const started = performance.now();
  await work();
  clearInterval(sampler);
  return { seconds: (performance.now() - started) / 1000, peakMb: Math.max(peak, process.memoryUsage.rss()) / 2 ** 20 };
}

/** The floor: per domain its MX lookup, then RCPT-only conversations, `perMx` connections per host, `domainsAtOnce` domains at once. */
async function floor() {
  const slot = createHostSlots(() => perMx);
  const options = probeOptions();
  const byDomain = new Map<string, string[]>();
  for (const address of addresses) byDomain.set(address.split('@')[1]!, [...(byDomain.get(address.split('@')[1]!) ?? []), address]);
  const domains = [...byDomain];
  let accepted = 0;
  const checkDomain = async (domain: string, queue: string[]) => {
    const found = await mailHosts(domain, { servers: [env.DNS_SERVERS!] });
    if (found.kind !== 'hosts') throw new Error(`${domain}: ${found.kind}`);
    const host = found.hosts[0]!;
    let catchAllAsked = false;
    const session = async () => {
      const release = await slot(host.host);
      const probe = await SmtpProbe.open(host, options);
      try {
        if (!catchAllAsked) {
          catchAllAsked = true;
          await probe.check(`nx-floor@${domain}`);
        }
        for (let address = queue.shift(); address; address = queue.shift())
          if ((await probe.check(address)).kind === 'accepted') accepted++;
      } finally {
        await probe.close();
        release();
      }
    };
    await Promise.all(Array.from({ length: Math.min(perMx, Math.ceil(queue.length / 10)) }, session));
  };
  const figures = await measured(async () => {
    const worker = async () => {
      for (let next = domains.shift(); next; next = domains.shift()) await checkDomain(...next);
    };
    await Promise.all(Array.from({ length: domainsAtOnce }, worker));
  });
  return { ...figures, accepted };
}

/** The service: a business workspace's leads, one validation job through the service, run by the worker in this process. */
async function service() {
  const workspace = await createWorkspace({ name: 'Validate', plan: 'business', email: 'validate@bench.test' });
  await setBalances(workspace.workspaceId, { validation: addressCount });
  await importInBatches(
    workspace.workspaceId,
    addresses.map((email) => ({ email })),
  );
  const worker = await startWorker({ concurrency: settings().WORKER_CONCURRENCY });
  commandTimes?.clear();
  let job = { status: '', counts: {} as Record<string, number>, processed: 0, billable: 0, finished_at: null as string | null };
  const requestedAt = Date.now();
  const figures = await measured(async () => {
    const started = await startValidation({ workspaceId: workspace.workspaceId, brandId: workspace.brandId }, { filter: {}, force: false });
    while (!['completed', 'failed', 'cancelled'].includes(job.status)) {
      await new Promise((r) => setTimeout(r, 100));
      job = await getValidationJob(workspace.workspaceId, started.id);
    }
  });
  if (commandTimes) printCommandProfile(commandTimes, addressCount, 'address');
  // The job's end is seen before its cleanup and event are written: let them land before the worker stops.
  await new Promise((r) => setTimeout(r, 1_000));
  await worker.stop();
  // Timed from the request to the job's own finished_at: reading its state adds neither its interval nor its load.
  return { ...figures, seconds: (Date.parse(job.finished_at!) - requestedAt) / 1000, job };
}

const line = (label: string, seconds: number, peakMb: number, peaks: number[], extra = '') =>
  console.log(
    `${label.padEnd(34)} ${addressCount} addresses, ${domainCount} domains  ${seconds.toFixed(1).padStart(6)} s  ${(addressCount / seconds).toFixed(0).padStart(5)} addresses/s  ` +
      `peak connections per MX ${Math.max(...peaks)} (limit ${perMx})  peak RSS ${peakMb.toFixed(0)} MB${extra}`,
  );

const floorRun = await floor();
line('floor (DNS + SMTP probes only)', floorRun.seconds, floorRun.peakMb, await hostPeaks());
const serviceRun = await service();
const servicePeaks = await hostPeaks();
const floorAgain = await floor();
line(
  'service (validation job + worker)',
  serviceRun.seconds,
  serviceRun.peakMb,
  servicePeaks,
  `  ${againstFloors(serviceRun.seconds, [floorRun.seconds, floorAgain.seconds]).toFixed(2)}x the floors`,
);
line('floor again', floorAgain.seconds, floorAgain.peakMb, await hostPeaks());
console.log(
  `job: ${serviceRun.job.status}, processed ${serviceRun.job.processed}, billable ${serviceRun.job.billable}, counts ${JSON.stringify(serviceRun.job.counts)}; floor accepted ${floorRun.accepted}`,
);
console.log(`store: ${store.name}; RCPT answered after ${process.env.BENCH_RCPT_DELAY_MS ?? 20} ms; ${domainsAtOnce} domains at once`);
if (Math.max(...servicePeaks) > perMx) console.log(`OVER THE LIMIT: a mail host saw ${Math.max(...servicePeaks)} connections at once`);

world.removeAllListeners('exit');
world.disconnect();
await disconnectDatabase();
await stop();
store.remove();
// Agenda leaves its timers for jobs due later (the hourly prune, the outreach ticks) after the worker stops.
process.exit(0);
