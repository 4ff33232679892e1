import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Where an outbound call may connect: only public unicast addresses, plus exact exemptions. */
export interface AddressPolicy {
  /** Exact IPs allowed even though they are not public (OUTBOUND_ALLOWED_ADDRESSES). */
  allowed: ReadonlySet<string>;
  /** Resolves a host name to every address it has (replaceable, so tests never need outside DNS). */
  resolve(host: string): Promise<string[]>;
}

export class UrlNotAllowedError extends Error {
  readonly code = 'url_not_allowed';
}

/** True when `error`, or an error it wraps (HTTP clients wrap what their DNS lookup and hooks throw), is the guard's refusal. */
export function isAddressRefusal(error: unknown): boolean {
  for (
    let current = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    current && depth < 5;
    current = current.cause as typeof current, depth++
  ) {
    if (current instanceof UrlNotAllowedError || current.code === 'url_not_allowed') return true;
  }
  return false;
}

const systemResolver = async (host: string) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * A resolver that answers fixed host names itself (for example
 * `fixture.test=127.0.0.3`) and asks the system for the rest.
 */
export function resolverWithOverrides(overrides: Record<string, string>, fallback = systemResolver) {
  return async (host: string) => (overrides[host.toLowerCase()] ? [overrides[host.toLowerCase()]!] : fallback(host));
}

/** True for loopback, private, link-local (cloud metadata included), multicast and other non-public ranges. */
export function isForbiddenAddress(address: string, policy: AddressPolicy): boolean {
  if (policy.allowed.has(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (policy.allowed.has(parsed.toString())) return false;
  return parsed.range() !== 'unicast';
}

/**
 * True for an address on this machine (127.0.0.0/8, ::1). Mail logins send
 * a password: to any other address they go over TLS (implicit, or a
 * STARTTLS that must succeed), so a network in between cannot strip it.
 */
export function isLoopbackAddress(address: string): boolean {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'loopback';
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Every address the URL's host resolves to must be allowed; returns them for the connection to use. */
export async function assertUrlAllowed(url: string | URL, policy: AddressPolicy): Promise<string[]> {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UrlNotAllowedError(`Only http and https URLs can be fetched, not ${parsed.protocol}`);
  return approvedAddresses(hostOf(parsed), policy);
}

/**
 * Every address `host` resolves to, when all may be reached (any other
 * protocol's connection, e.g. SMTP, connects to one of these itself).
 */
export async function approvedAddresses(host: string, policy: AddressPolicy): Promise<string[]> {
  const addresses = isIP(host)
    ? [host]
    : await policy.resolve(host).catch(() => {
        throw new UrlNotAllowedError(`${host} does not resolve`);
      });
  return assertAddressesAllowed(host, addresses, policy);
}

/**
 * The addresses a caller resolved itself for `host` (a mail host from its
 * domain's MX lookup), when all may be reached; the connection must go to
 * one of them, never to a second lookup's answer.
 */
export function assertAddressesAllowed(host: string, addresses: string[], policy: AddressPolicy): string[] {
  const forbidden = addresses.find((address) => isForbiddenAddress(address, policy));
  if (forbidden || !addresses.length)
    throw new UrlNotAllowedError(
      forbidden
        ? `${host} resolves to ${forbidden}, which outbound calls may not reach (loopback, private and reserved ranges are refused; OUTBOUND_ALLOWED_ADDRESSES lists addresses to allow)`
        : `${host} resolves to nothing`,
    );
  return addresses;
}

/**
 * For a URL whose host is an IP address, the same check as assertUrlAllowed
 * (no lookup happens for it, so a guard in the lookup never sees it); a
 * host name is left to the guarded lookup of each connection.
 */
export async function assertLiteralAddressAllowed(url: URL, policy: AddressPolicy): Promise<void> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UrlNotAllowedError(`Only http and https URLs can be fetched, not ${url.protocol}`);
  if (isIP(hostOf(url))) await assertUrlAllowed(url, policy);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

/**
 * A `dns.lookup` replacement for the HTTP client: it resolves through the
 * policy and refuses forbidden addresses before any socket is opened, for
 * the first request and for every redirect alike.
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: { all?: boolean } | number | LookupCallback, callback?: LookupCallback) => {
    const done = (typeof options === 'function' ? options : callback)!;
    const all = typeof options === 'object' && options.all;
    assertUrlAllowed(`http://${isIP(hostname) === 6 ? `[${hostname}]` : hostname}/`, policy).then(
      (addresses) => {
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (all) done(null, entries);
        else done(null, entries[0]!.address, entries[0]!.family);
      },
      (error: Error) => done(Object.assign(error, { code: 'url_not_allowed' }) as NodeJS.ErrnoException, ''),
    );
  };
}
