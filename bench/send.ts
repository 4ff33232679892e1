/**
 * Campaign sending throughput: the sending engine (every rule per message:
 * claim record, caps, suppression check, rendering, counters) against a
 * floor of raw nodemailer doing only the SMTP part, in one run, to the same
 * SMTP server (bench/support-smtp-sink.ts, its own process, on 127.0.0.1).
 *
 *   npm run bench:send                        # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:send
 *   BENCH_MESSAGES=1000 BENCH_HISTORY=10000 … # another size
 *   BENCH_PROFILE=1 …                         # also: database commands per message, by collection and command
 *   BENCH_TRACKING=0 …                        # the campaign without open and click tracking (on by default)
 *
 * Each round: a new Business workspace with 3 inboxes (2,000 a day each), a
 * one-step sequence with merge variables and a link, and a campaign of
 * BENCH_MESSAGES leads (imported and enrolled through the services; with
 * `track_opens` and `track_clicks` unless BENCH_TRACKING=0) is made; the floor
 * sends BENCH_MESSAGES messages composed the same way (the pixel and the
 * tracked link included) through one pooled transport, 8 at
 * a time (the engine's sends at once); the campaign is sent by a job worker
 * process (`src/main.ts worker`, its outreach tick every 100 ms; one process
 * for every round, as the floor's code runs in one) until the SMTP server
 * has every message; then the floor runs again. The engine is compared with
 * both floors (bench/support-floors.ts). The first round runs on an empty
 * store;
 * the second after BENCH_HISTORY earlier sent messages and their finished
 * enrollments are stored, as a busy workspace would have them. The floor's
 * peak RSS is sampled in this process, the worker's is its own peak so
 * far (VmHWM). This process runs with the worker's Node.js flags (as
 * `npm run worker` has them), so the floor runs under the same V8 settings
 * as the engine. Beside each figure, the CPU time a message of each process
 * that worked on it (from /proc: steadier between runs than the rates). With
 * BENCH_PROFILE=1 the engine runs in this process instead, to count its
 * database commands.
 */
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import nodemailer from 'nodemailer';
import { createCampaignInput } from '../schema/outreach/campaigns.ts';
import { createInboxInput } from '../schema/outreach/inboxes.ts';
import { createSequenceInput } from '../schema/outreach/sequences.ts';
import type { Principal } from '../src/auth/principal.ts';
import { loadConfig } from '../src/config.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { importLeads } from '../src/leads/lead-import.service.ts';
import { createCampaign, updateCampaign } from '../src/outreach/campaigns/campaigns.service.ts';
import { enrollLeads } from '../src/outreach/campaigns/enrollments.service.ts';
import { createInbox } from '../src/outreach/inboxes/inboxes.service.ts';
import { compose } from '../src/outreach/delivery/compose.ts';
import { runOutreachPass } from '../src/outreach/delivery/engine.ts';
import { closeTransports } from '../src/outreach/delivery/mailer.ts';
import { createSequence } from '../src/outreach/sequences/sequences.service.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { startService } from '../test/support/processes.ts';
import { againstFloors } from './support-floors.ts';
import { cpuMsOf, runWithWorkerFlags, statusMiB, workerNodeFlags } from './support-process.ts';
import { benchStore, printCommandProfile, watchCommands, withUriOption } from './support-store.ts';

runWithWorkerFlags();

const messages = Number(process.env.BENCH_MESSAGES ?? 5_000);
const history = Number(process.env.BENCH_HISTORY ?? 50_000);
const profile = process.env.BENCH_PROFILE === '1';
const tracking = process.env.BENCH_TRACKING !== '0';
const sendsAtOnce = 8;
const store = benchStore('send');

const { uri, stop } = await store.open();
const workerEnv = {
  MONGODB_URI: uri,
  SECRETS_KEY: randomBytes(32).toString('base64'),
  OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1',
  PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
  LOG_LEVEL: 'warn',
};
loadConfig(workerEnv);
await connectDatabase(profile ? withUriOption(uri, 'monitorCommands=true') : uri);
const commandTimes = profile ? watchCommands() : new Map<string, { count: number; ms: number }>();

function printProfile() {
  printCommandProfile(commandTimes, messages, 'message');
  commandTimes.clear();
}

const sink = fork(new URL('./support-smtp-sink.ts', import.meta.url));
const { port } = await nextMessage<{ port: number }>();
const smtp = { host: '127.0.0.1', port, secure: false };

function nextMessage<T>(): Promise<T> {
  return new Promise((resolve) => sink.once('message', (message) => resolve(message as T)));
}
async function sinkCount(): Promise<number> {
  sink.send('count');
  return (await nextMessage<{ count: number }>()).count;
}

interface Figures {
  seconds: number;
  peakMb: number;
  /** The embedded FerretDB's peak RSS so far. */
  storePeakMb?: number;
  /** CPU time a message of each process that worked on it, in ms. */
  cpu: Record<string, number>;
}

/** CPU time a message of the named processes (by pid) while `work` runs. */
async function cpuPerMessage(pids: Record<string, number | null>, work: () => Promise<void>): Promise<Record<string, number>> {
  const named = Object.entries(pids).filter((entry): entry is [string, number] => entry[1] !== null);
  const before = named.map(([, pid]) => cpuMsOf(pid));
  await work();
  return Object.fromEntries(named.map(([name, pid], i) => [name, (cpuMsOf(pid) - before[i]!) / messages]));
}

/** Runs `work`, sampling the process's RSS; returns seconds taken, the peak RSS in MB and the CPU a message of this process and the SMTP server. */
async function measured(work: () => Promise<void>): Promise<Figures> {
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const started = performance.now();
  const cpu = await cpuPerMessage({ 'bench process': process.pid, 'SMTP server': sink.pid! }, work);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  return { seconds, peakMb: Math.max(peak, process.memoryUsage.rss()) / 2 ** 20, cpu };
}

/** The floor: the same kind of message, composed the same way, through one pooled nodemailer transport. */
async function floor() {
  const transport = nodemailer.createTransport({
    ...smtp,
    auth: { user: 'floor', pass: 'secret' },
    pool: true,
    maxConnections: sendsAtOnce,
    maxMessages: Infinity,
  });
  const before = await sinkCount();
  let next = 0;
  const figures = await measured(async () => {
    const sender = async () => {
      for (let n = next++; n < messages; n = next++) {
        await transport.sendMail(
          compose({
            recordId: `floor:${n}`,
            from: 'floor@bench.test',
            fromName: 'Bench',
            to: `person${n}@company${n % 5000}.test`,
            replyTo: null,
            subject: `Hello Person ${n}`,
            html: `<p>Hi Person ${n},</p><p>A word about Company ${n} and <a href="https://bench.test/growth">its growth</a>.</p>`,
            text: `Hi Person ${n},\n\nA word about Company ${n} and its growth (https://bench.test/growth).`,
            messageId: `<${randomUUID()}@bench.test>`,
            inReplyTo: null,
            trackOpens: tracking,
            trackClicks: tracking,
          }),
        );
      }
    };
    await Promise.all(Array.from({ length: sendsAtOnce }, sender));
  });
  transport.close();
  const sent = (await sinkCount()) - before;
  if (sent !== messages) throw new Error(`the floor delivered ${sent} of ${messages}`);
  return figures;
}

type Activate = () => Promise<void>;

/** A workspace with 3 inboxes and a campaign of `messages` enrolled leads, made through the services; answers what starts it. */
async function campaignOfLeads(round: number): Promise<Activate> {
  const workspace = await createWorkspace({ name: `Send ${round}`, plan: 'business', email: `send${round}@bench.test` });
  const principal: Principal = {
    kind: 'api_key',
    id: 'bench',
    workspaceId: workspace.workspaceId,
    userId: workspace.userId,
    brandId: null,
    scopes: ['*'],
    status: 'active',
  };
  const inboxIds: string[] = [];
  for (const n of [1, 2, 3]) {
    const input = createInboxInput.parse({
      name: `Inbox ${n}`,
      from: `sender${n}@bench.test`,
      from_name: 'Bench',
      dailyLimit: 2000,
      verify: false,
      smtp: { ...smtp, user: `sender${n}`, password: 'secret' },
    });
    inboxIds.push((await createInbox(principal, input)).id);
  }
  const sequence = await createSequence(
    principal,
    createSequenceInput.parse({
      name: 'Intro',
      steps: [
        {
          subject: 'Hello {{first_name|there}}',
          body_html:
            '<p>Hi {{first_name|there}},</p><p>A word about {{company}} and <a href="https://bench.test/growth">its growth</a>.</p>',
        },
      ],
    }),
  );
  const schedule = { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };
  const campaign = await createCampaign(
    principal,
    createCampaignInput.parse({
      name: 'Launch',
      sequence_id: sequence.id,
      inbox_ids: inboxIds,
      schedule,
      daily_limit: 10_000,
      track_opens: tracking,
      track_clicks: tracking,
    }),
  );
  for (let offset = 0; offset < messages; offset += 500) {
    const leads = Array.from({ length: Math.min(500, messages - offset) }, (_, i) => {
      const n = round * 1_000_000 + offset + i;
      return { email: `person${n}@company${n % 5000}.test`, full_name: `Person ${n}`, company: `Company ${n}` };
    });
    const imported = await importLeads(workspace.workspaceId, { leads });
    const enrolled = await enrollLeads(
      workspace.workspaceId,
      campaign.id,
      imported.leads.map((lead) => lead.id),
    );
    if (enrolled.enrolled !== leads.length) throw new Error(`enrolled ${enrolled.enrolled} of ${leads.length} leads`);
  }
  return async () => void (await updateCampaign(workspace.workspaceId, { id: campaign.id, status: 'active' }));
}

/** The campaign sent by sending passes in this process (for the command profile) or by a job worker process; returns seconds taken and the sender's peak RSS. */
async function engine(activate: Activate) {
  const before = await sinkCount();
  commandTimes.clear();
  const figures = profile ? await passesHere(activate) : await inWorker(activate, before);
  closeTransports();
  const received = (await sinkCount()) - before;
  if (received !== messages) throw new Error(`the SMTP server received ${received} of ${messages} messages`);
  return figures;
}

async function passesHere(activate: Activate) {
  await activate();
  return measured(async () => {
    for (let sent = 0, got = -1; got !== 0 && sent < messages; sent += got) got = (await runOutreachPass()).sent ?? 0;
  });
}

let worker: Awaited<ReturnType<typeof startService>> | null = null;

/**
 * The worker process sends the campaign: timed from the campaign's start to
 * the last message at the SMTP server. One worker runs every round, as a
 * deployed worker runs for days: a worker started for each round would be
 * measured while its code is still being compiled, beside a floor whose
 * code this process has already run.
 */
async function inWorker(activate: Activate, before: number) {
  if (!worker) {
    worker = await startService(
      process.execPath,
      [...workerNodeFlags, 'src/main.ts', 'worker'],
      { ...workerEnv, OUTREACH_TICK_MS: '100', LOG_LEVEL: 'info' },
      null,
    );
    await waitFor(() => worker!.output().includes('worker started'), 60_000);
  }
  const storePid = store.pid();
  const started = performance.now();
  const cpu = await cpuPerMessage({ worker: worker.pid!, FerretDB: storePid, 'SMTP server': sink.pid! }, async () => {
    await activate();
    await waitFor(async () => (await sinkCount()) - before >= messages, 600_000);
  });
  const seconds = (performance.now() - started) / 1000;
  // Its peak over its life so far (every round up to this one).
  const peakMb = statusMiB(worker.pid!, 'VmHWM');
  return { seconds, peakMb, cpu, ...(storePid !== null && { storePeakMb: statusMiB(storePid, 'VmHWM') }) };
}

const stopWorker = async () => worker?.stop();

async function waitFor(done: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('the worker did not finish in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `count` sent messages and finished enrollments of an earlier campaign, inserted directly (the store's state, not the engine's work). */
async function seedHistory(count: number) {
  const db = mongoose.connection.db!;
  const campaignId = randomUUID();
  const at = new Date(Date.now() - 30 * 24 * 3_600_000);
  for (let offset = 0; offset < count; offset += 1000) {
    const ids = Array.from({ length: Math.min(1000, count - offset) }, () => ({
      enrollment: `${campaignId}:${randomUUID()}`,
      lead: randomUUID(),
    }));
    await db.collection('outreach_enrollments').insertMany(
      ids.map(({ enrollment, lead }) => ({
        _id: enrollment as never,
        workspaceId: 'history',
        campaignId,
        leadId: lead,
        nextStep: 1,
        nextDueAt: at,
        status: 'finished',
        skipped: [],
        createdAt: at,
        updatedAt: at,
      })),
    );
    await db.collection('outreach_messages').insertMany(
      ids.map(({ enrollment, lead }, i) => ({
        _id: `${enrollment}:0` as never,
        workspaceId: 'history',
        brandId: 'history',
        campaignId,
        enrollmentId: enrollment,
        leadId: lead,
        inboxId: 'history',
        step: 0,
        variant: 0,
        to: `old${offset + i}@history.test`,
        subject: 'Hello',
        messageId: `<${randomUUID()}@history.test>`,
        inReplyTo: null,
        status: 'sent',
        attempts: 1,
        retryAt: null,
        error: null,
        smtpResponse: '250 OK',
        sentAt: at,
        openedAt: null,
        createdAt: at,
        updatedAt: at,
      })),
    );
  }
}

const line = (name: string, figures: Figures, toFloors?: number) => {
  const rate = messages / figures.seconds;
  const ratio = toFloors ? `  ${toFloors.toFixed(2)}× the floors` : '';
  const cpu = Object.entries(figures.cpu)
    .map(([process, ms]) => `${process} ${ms.toFixed(2)}`)
    .join(', ');
  console.log(
    `${name.padEnd(44)} ${figures.seconds.toFixed(1).padStart(6)} s  ${Math.round(rate).toString().padStart(6)} msg/s  peak RSS ${Math.round(figures.peakMb)} MB${ratio}`,
  );
  const store = figures.storePeakMb === undefined ? '' : `; FerretDB's peak RSS ${Math.round(figures.storePeakMb)} MB`;
  console.log(`${''.padEnd(44)} CPU ms a message: ${cpu}${store}`);
};

try {
  console.log(
    `store: ${store.name}; ${messages} messages per phase, ${sendsAtOnce} at a time, to an SMTP server on 127.0.0.1; open and click tracking ${tracking ? 'on' : 'off'}`,
  );
  const rounds: Array<[string, () => Promise<void>]> = [
    ['empty store', async () => {}],
    [`after ${history} earlier messages`, () => seedHistory(history)],
  ];
  for (const [index, [label, prepare]] of rounds.entries()) {
    await prepare();
    const activate = await campaignOfLeads(index);
    const floorBefore = await floor();
    line(`floor (nodemailer pool), ${label}`, floorBefore);
    const engineRun = await engine(activate);
    const floorAfter = await floor();
    const toFloors = againstFloors(engineRun.seconds, [floorBefore.seconds, floorAfter.seconds]);
    line(`engine (${profile ? 'in this process' : 'a worker process'}), ${label}`, engineRun, toFloors);
    line(`floor again, ${label}`, floorAfter);
    if (profile) printProfile();
  }
} finally {
  await stopWorker();
  sink.disconnect();
  await disconnectDatabase();
  await stop();
  store.remove();
}
