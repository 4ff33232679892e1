/**
 * The mail domains bench/find-email.ts looks people up at, in a process of their own (test/support/mail-world.ts):
 * domain d is `finder<d>.test` with its mail host on 127.0.2.<d+1>; its people's mailboxes follow one pattern per
 * domain (first.last, first or flast in turn: the finder's first, second and third candidates), every other address
 * is refused, and every tenth domain accepts any address (catch-all). Person n is named from letters only, as
 * mailbox names are.
 *
 * Messages: sends `{ env }` once listening; answers `stats` with the connections each mail host saw
 * (`{ totals: { ip: { total, peak } } }`) and `reset` by forgetting them.
 */
import { startMailWorld, type MailDomain } from '../test/support/mail-world.ts';

const domainCount = Number(process.env.BENCH_DOMAINS ?? 50);
const people = Number(process.env.BENCH_PEOPLE ?? 40);

export const finderDomain = (d: number) => `finder${d}.test`;
export const finderHostIp = (d: number) => `127.0.2.${d + 1}`;

/** n in letters (0 → a, 26 → ba): names hold no digits. */
const letters = (n: number): string => (n >= 26 ? letters(Math.floor(n / 26)) : '') + String.fromCharCode(97 + (n % 26));
/** Person n's first and last name. */
export const personName = (n: number) => ({ first: `ann${letters(n)}`, last: `lee${letters(n * 7 + 3)}` });

const patterns = [
  (p: { first: string; last: string }) => `${p.first}.${p.last}`,
  (p: { first: string; last: string }) => p.first,
  (p: { first: string; last: string }) => `${p.first[0]}${p.last}`,
];

const domains: Record<string, MailDomain> = {};
for (let d = 0; d < domainCount; d++) {
  domains[finderDomain(d)] =
    d % 10 === 9
      ? { ip: finderHostIp(d), otherwise: 'accept' }
      : {
          ip: finderHostIp(d),
          mailboxes: Object.fromEntries(Array.from({ length: people }, (_, n) => [patterns[d % 3]!(personName(n)), 'accept' as const])),
        };
}

if (import.meta.main) {
  const world = await startMailWorld(domains, { rcptDelayMs: Number(process.env.BENCH_RCPT_DELAY_MS ?? 20) });
  const ips = Array.from({ length: domainCount }, (_, d) => finderHostIp(d));
  process.on('message', (message: string) => {
    if (message === 'stats') process.send!({ totals: Object.fromEntries(ips.map((ip) => [ip, world.connections(ip)])) });
    if (message === 'reset') {
      world.reset();
      process.send!({ reset: true });
    }
  });
  process.on('disconnect', () => void world.stop().then(() => process.exit(0)));
  process.send!({ env: world.env });
}
