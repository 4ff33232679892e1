import type { MxRecord } from 'node:dns';
import { Resolver } from 'node:dns/promises';

/** A host that accepts mail for the domain, with the addresses to connect to (IPv4 first). */
export interface MailHost {
  host: string;
  /** MX preference, lowest first; 0 for the domain itself when it has no MX (RFC 5321 §5.1). */
  priority: number;
  addresses: string[];
}

/**
 * `hosts`: where to deliver, in the order to try, each with at least one address.
 * `none`: DNS says for good that nothing takes mail there (the address is invalid).
 * `temporary`: DNS could not say (SERVFAIL, REFUSED, no answer in time...): ask again later.
 */
export type MailHostsResult =
  | { kind: 'hosts'; hosts: MailHost[] }
  | { kind: 'none'; reason: 'no-domain' | 'null-mx' | 'no-mail-host' | 'mx-without-address' }
  | { kind: 'temporary'; reason: string };

export interface MailHostsOptions {
  /** `ip` or `ip:port` name servers; the system's when left out. */
  servers?: string[];
  /** The whole lookup's budget. */
  timeoutMs?: number;
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/** The records, or [] when the name or the type does not exist: answers that will not change on a retry. */
async function records<T>(query: Promise<T[]>): Promise<T[]> {
  try {
    return await query;
  } catch (error) {
    if (codeOf(error) === 'ENOTFOUND' || codeOf(error) === 'ENODATA') return [];
    throw error;
  }
}

/** A then AAAA; one family failing for now does not hide the other's addresses. */
async function addressesOf(resolver: Resolver, host: string): Promise<string[]> {
  const families = await Promise.allSettled([records(resolver.resolve4(host)), records(resolver.resolve6(host))]);
  const addresses = families.flatMap((family) => (family.status === 'fulfilled' ? family.value : []));
  const failed = families.find((family) => family.status === 'rejected');
  if (addresses.length === 0 && failed) throw failed.reason;
  return addresses;
}

/** Where mail for `domain` goes, as an SMTP client would find it, with every host's addresses resolved. */
export async function mailHosts(domain: string, options: MailHostsOptions = {}): Promise<MailHostsResult> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  // Two short tries, so a lost datagram is asked again within the budget (maxTimeout stops c-ares doubling
  // the second). Node checks c-ares's timeouts on a timer of that same period, so a try can last nearly twice
  // as long, and each server adds its tries: the deadline below is what holds the budget.
  const perTry = Math.max(1, Math.floor(timeoutMs / 4));
  const resolver = new Resolver({ timeout: perTry, maxTimeout: perTry, tries: 2 });
  if (options.servers) resolver.setServers(options.servers);
  const deadline = setTimeout(() => resolver.cancel(), timeoutMs);
  try {
    let mx: MxRecord[];
    try {
      mx = await resolver.resolveMx(domain);
    } catch (error) {
      // EBADNAME: a name DNS cannot carry (a label over 63 octets), as sure as NXDOMAIN.
      if (codeOf(error) === 'ENOTFOUND' || codeOf(error) === 'EBADNAME') return { kind: 'none', reason: 'no-domain' };
      if (codeOf(error) !== 'ENODATA') throw error;
      mx = [];
    }
    if (mx.length === 0) {
      // No MX: the domain itself is the mail host (RFC 5321 §5.1).
      const addresses = await addressesOf(resolver, domain);
      return addresses.length > 0
        ? { kind: 'hosts', hosts: [{ host: domain, priority: 0, addresses }] }
        : { kind: 'none', reason: 'no-mail-host' };
    }
    // The lowest preference of each host; equal ones by name, since servers rotate the order of their answers.
    const preference = new Map<string, number>();
    for (const { exchange, priority } of mx) {
      const host = exchange.toLowerCase().replace(/\.$/, '');
      // A null MX (RFC 7505) has the root as its exchange: it names no host.
      const known = preference.get(host);
      if (host && (known === undefined || priority < known)) preference.set(host, priority);
    }
    if (preference.size === 0) return { kind: 'none', reason: 'null-mx' };
    const ordered = [...preference].sort(([a, p], [b, q]) => p - q || (a < b ? -1 : 1));
    const resolved = await Promise.allSettled(ordered.map(([host]) => addressesOf(resolver, host)));
    const hosts = ordered.flatMap(([host, priority], i) => {
      const found = resolved[i]!;
      return found.status === 'fulfilled' && found.value.length > 0 ? [{ host, priority, addresses: found.value }] : [];
    });
    if (hosts.length > 0) return { kind: 'hosts', hosts };
    // No host has an address: for good only if every host's lookup said so.
    const failed = resolved.find((found) => found.status === 'rejected');
    if (failed) throw failed.reason;
    return { kind: 'none', reason: 'mx-without-address' };
  } catch (error) {
    // ECANCELLED is the deadline above.
    return { kind: 'temporary', reason: codeOf(error) === 'ECANCELLED' ? 'ETIMEOUT' : codeOf(error) };
  } finally {
    clearTimeout(deadline);
  }
}
