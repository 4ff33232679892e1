import { hostname } from 'node:os';
import { settings } from '../../config.ts';
import { isAddressRefusal } from '../../../outbound/address-guard.ts';
import { createHostSlots } from '../../net/host-slots.ts';
import { providerOf } from '../../email-address/address-facts.ts';
import { mailHosts, type MailHost } from '../checks/mail-hosts.ts';
import { SmtpProbe, type ProbeOptions } from '../checks/smtp-probe.ts';
import { catchAllAnswer, final, rcptOutcome, type Outcome } from './conclusions.ts';

/** SMTP connections to one mail host at once, across every job of this process. */
const mxSlot = createHostSlots(() => settings().SMTP_PROBE_CONCURRENCY_PER_MX);

/** Recipients asked on one connection before it is closed and another opened (servers cap them per session). */
const maxRcptPerConnection = 50;
/** Addresses worth a connection of their own, up to the per-host limit. */
const addressesPerSession = 10;

/** What the domain's facts say of every address at it, beside each address's own outcome. */
export interface DomainFacts {
  provider: string | null;
  mxHost: string | null;
}

export interface DomainCheck {
  domain: string;
  addresses: string[];
  /** The domain's catch-all answer already known in this job. */
  catchAll: boolean | undefined;
  /** The job's made-up address at the domain: the same on every try, so a greylisting server lets it through the second time. */
  catchAllProbe: string;
  /** Keeps a conclusive catch-all answer for the job's later tries (not awaited here either). */
  onCatchAll(answer: boolean): Promise<void>;
  /** Takes one address's outcome (not awaited here: the conversation goes on meanwhile). */
  report(address: string, outcome: Outcome, facts: DomainFacts): Promise<void>;
  shouldStop(): boolean;
}

export function probeOptions(): ProbeOptions {
  const config = settings();
  const helo = config.SMTP_PROBE_HELO ?? (config.PUBLIC_BASE_URL ? new URL(config.PUBLIC_BASE_URL).hostname : hostname());
  return { port: config.SMTP_PROBE_PORT, helo, from: config.SMTP_PROBE_FROM ?? `verify@${helo}`, timeoutMs: config.SMTP_PROBE_TIMEOUT_MS };
}

const dnsServers = () =>
  settings()
    .DNS_SERVERS.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const noMailReason = {
  'no-domain': 'no_domain',
  'null-mx': 'null_mx',
  'no-mail-host': 'no_mail_host',
  'mx-without-address': 'no_mail_host',
} as const;

/**
 * Checks the addresses of one domain: its mail hosts from DNS, then one
 * SMTP conversation per connection for several addresses (RCPT only, never
 * DATA), at most SMTP_PROBE_CONCURRENCY_PER_MX connections to a host at once,
 * after one probe of the job's made-up address for a catch-all server.
 * Resolves once every address's outcome is reported.
 */
export async function checkDomain(check: DomainCheck): Promise<void> {
  const reports: Promise<void>[] = [];
  const report = (address: string, outcome: Outcome, facts: DomainFacts) => void reports.push(check.report(address, outcome, facts));
  const keepCatchAll = (answer: boolean) => void reports.push(check.onCatchAll(answer));
  const everyAddress = (outcome: Outcome, facts: DomainFacts) => check.addresses.forEach((address) => report(address, outcome, facts));

  const servers = dnsServers();
  const found = await mailHosts(check.domain, servers.length ? { servers } : {});
  if (found.kind === 'none') everyAddress(final('invalid', noMailReason[found.reason]), { provider: null, mxHost: null });
  else if (found.kind === 'temporary')
    everyAddress({ kind: 'temporary', reason: `DNS: ${found.reason}` }, { provider: null, mxHost: null });
  else await converse(check, found.hosts, report, keepCatchAll);
  await Promise.all(reports);
}

type Opened = { kind: 'open'; probe: SmtpProbe; host: MailHost; release: () => void } | { kind: 'refused' | 'failed'; reason: string };

/** A conversation with the first mail host, in preference order, that the guard allows and that answers. */
async function openProbe(hosts: MailHost[], options: ProbeOptions): Promise<Opened> {
  let failure: Opened = { kind: 'refused', reason: 'no mail host' };
  for (const host of hosts) {
    const release = await mxSlot(host.host);
    try {
      return { kind: 'open', probe: await SmtpProbe.open(host, options), host, release };
    } catch (error) {
      release();
      const message = `${host.host}: ${(error as Error).message}`;
      // One host that answered nothing makes the whole a temporary failure, even if others are refused.
      if (!isAddressRefusal(error)) failure = { kind: 'failed', reason: message };
      else if (failure.kind === 'refused') failure = { kind: 'refused', reason: message };
    }
  }
  return failure;
}

async function converse(
  check: DomainCheck,
  hosts: MailHost[],
  report: (address: string, outcome: Outcome, facts: DomainFacts) => void,
  keepCatchAll: (answer: boolean) => void,
) {
  const options = probeOptions();
  const provider = providerOf(hosts.map((host) => host.host));
  const queue = [...check.addresses];
  const drain = (outcome: Outcome, mxHost: string | null) =>
    queue.splice(0).forEach((address) => report(address, outcome, { provider, mxHost }));
  const unreachable = (opened: Exclude<Opened, { kind: 'open' }>) =>
    opened.kind === 'refused'
      ? final('unknown', 'mail_host_not_public', opened.reason)
      : ({ kind: 'temporary', reason: opened.reason } as const);

  const first = await openProbe(hosts, options);
  if (first.kind !== 'open') return drain(unreachable(first), null);
  // The first connection asks the catch-all question while the others open and ask theirs: an answer is read
  // once the catch-all answer is in.
  const catchAll: Promise<boolean | undefined> =
    check.catchAll === undefined
      ? first.probe.check(check.catchAllProbe).then((verdict) => {
          const answer = catchAllAnswer(verdict);
          if (answer !== undefined) keepCatchAll(answer);
          return answer;
        })
      : Promise.resolve(check.catchAll);

  /** Asks addresses off the shared queue on one connection after another, until the queue is empty. */
  const session = async (opened: Opened | null) => {
    let current = opened;
    let asked = 0;
    try {
      // The first connection is busy with the catch-all question until it is answered.
      if (opened) await catchAll;
      while (queue.length && !check.shouldStop()) {
        current ??= await openProbe(hosts, options);
        if (current.kind !== 'open') return drain(unreachable(current), null);
        const address = queue.shift()!;
        const verdict = await current.probe.check(address);
        report(address, rcptOutcome(verdict, await catchAll), { provider, mxHost: current.host.host });
        if (!current.probe.usable || ++asked >= maxRcptPerConnection) {
          await current.probe.close();
          current.release();
          current = null;
          asked = 0;
        }
      }
    } finally {
      if (current?.kind === 'open') {
        await current.probe.close();
        current.release();
      }
    }
  };
  const sessions = Math.min(settings().SMTP_PROBE_CONCURRENCY_PER_MX, Math.ceil(queue.length / addressesPerSession));
  await Promise.all([session(first), ...Array.from({ length: Math.max(0, sessions - 1) }, () => session(null))]);
}
