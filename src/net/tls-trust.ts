import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { settings } from '../config.ts';
import type { TlsTrust } from '../../outbound/guarded-client.ts';

let cached: { file: string; ca: string[] } | undefined;

/**
 * How outbound TLS is checked: certificates verified (unless `verify` is
 * false: a scraper created with insecure_tls) against Node's authorities,
 * plus those in OUTBOUND_CA_FILE (a private CA in staging, the tests' own).
 */
export function tlsTrust(verify: boolean): TlsTrust {
  const file = settings().OUTBOUND_CA_FILE;
  if (!file) return { verify };
  if (cached?.file !== file) cached = { file, ca: [...rootCertificates, readFileSync(file, 'utf8')] };
  return { verify, ca: cached.ca };
}
