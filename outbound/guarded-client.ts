import { Agent } from 'node:https';
import { assertLiteralAddressAllowed, assertUrlAllowed, guardedLookup, isAddressRefusal, type AddressPolicy } from './address-guard.ts';

/** How outbound TLS is checked: `verify` certificates (off only where a scraper asks), against the default authorities plus `ca`. */
export interface TlsTrust {
  verify: boolean;
  /** PEM certificates to trust besides Node's own authorities (OUTBOUND_CA_FILE). */
  ca?: string[];
}

/**
 * got options (got-scraping) under which every connection goes only to an
 * address the guard approved: the guard is the DNS lookup of each
 * connection to a host name, every request to an IP address is checked
 * before it is sent (no lookup happens for it), and a redirect is checked
 * before it is followed. Two got-scraping defaults would open connections
 * outside it and are off: HTTP/2 and its browser-header generator, which
 * both first negotiate the protocol over a TLS connection of their own,
 * resolved by the system. Certificates are verified unless `tls.verify`
 * is false.
 */
export function guardedGotOptions({ policy, tls }: { policy: AddressPolicy; tls: TlsTrust }) {
  return {
    dnsLookup: guardedLookup(policy) as never,
    http2: false,
    useHeaderGenerator: false,
    https: { rejectUnauthorized: tls.verify },
    ...(tls.ca && { agent: { https: agentTrusting(tls.ca, tls.verify) } }),
    hooks: {
      beforeRequest: [async (request: { url?: URL | string }) => assertLiteralAddressAllowed(new URL(String(request.url)), policy)],
      beforeRedirect: [
        async (next: { url?: URL | string }) => {
          if (next.url) await assertUrlAllowed(next.url.toString(), policy);
        },
      ],
    },
  };
}

const agents = new WeakMap<string[], Map<boolean, Agent>>();

/**
 * An https agent trusting `ca`, one per list and verify setting: given per
 * request instead, the list (Node's authorities and more) would be joined
 * into the connection pool's key on every request.
 */
function agentTrusting(ca: string[], verify: boolean): Agent {
  const byVerify = agents.get(ca) ?? agents.set(ca, new Map()).get(ca)!;
  if (!byVerify.has(verify)) byVerify.set(verify, new Agent({ ca, rejectUnauthorized: verify, keepAlive: true }));
  return byVerify.get(verify)!;
}

/** OpenSSL's and Node's codes for a certificate that cannot be trusted for the host. */
const certificateCodes = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME|HOSTNAME_MISMATCH/;

/** Why an outbound request failed, for the ones the caller should name: the guard refused it, or its certificate. */
export function outboundFailureCode(error: unknown): 'url_not_allowed' | 'tls_error' | undefined {
  if (isAddressRefusal(error)) return 'url_not_allowed';
  for (
    let current = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    current && depth < 5;
    current = current.cause as typeof current, depth++
  ) {
    if (typeof current.code === 'string' && certificateCodes.test(current.code)) return 'tls_error';
  }
  return undefined;
}
