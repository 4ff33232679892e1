/**
 * The mail domains bench/validate.ts checks, in a process of their own (so
 * the servers do not share the measured process's event loop): a DNS
 * server and one SMTP server per domain's mail host on its own loopback
 * address (test/support/mail-world.ts). Domain d is `company<d>.test` with
 * its mail host on 127.0.1.<d+1>; on most domains the first
 * `BENCH_MAILBOXES` local parts (`person<n>`) exist and the others are
 * refused, every tenth domain accepts any address (catch-all).
 *
 * Messages: sends `{ env }` once listening; answers `stats` with the
 * connections each mail host saw (`{ peaks: { ip: { total, peak } } }`) and
 * `reset` by forgetting them.
 */
import { startMailWorld, type MailDomain } from '../test/support/mail-world.ts';

const domainCount = Number(process.env.BENCH_DOMAINS ?? 50);
const mailboxes = Number(process.env.BENCH_MAILBOXES ?? 30);

export const benchDomain = (d: number) => `company${d}.test`;
export const benchHostIp = (d: number) => `127.0.1.${d + 1}`;

const domains: Record<string, MailDomain> = {};
for (let d = 0; d < domainCount; d++) {
  domains[benchDomain(d)] =
    d % 10 === 9
      ? { ip: benchHostIp(d), otherwise: 'accept' }
      : {
          ip: benchHostIp(d),
          mailboxes: Object.fromEntries(Array.from({ length: mailboxes }, (_, n) => [`person${n}`, 'accept' as const])),
        };
}

if (import.meta.main) {
  const world = await startMailWorld(domains, { rcptDelayMs: Number(process.env.BENCH_RCPT_DELAY_MS ?? 20) });
  const ips = Array.from({ length: domainCount }, (_, d) => benchHostIp(d));
  process.on('message', (message: string) => {
    if (message === 'stats') process.send!({ peaks: Object.fromEntries(ips.map((ip) => [ip, world.connections(ip)])) });
    if (message === 'reset') {
      world.reset();
      process.send!({ reset: true });
    }
  });
  process.on('disconnect', () => void world.stop().then(() => process.exit(0)));
  process.send!({ env: world.env });
}
