import { settings, type Config } from '../config.ts';
import { resolverWithOverrides, type AddressPolicy } from '../../outbound/address-guard.ts';

const list = (...texts: string[]) =>
  texts
    .flatMap((text) => text.split(','))
    .map((part) => part.trim())
    .filter(Boolean);

let cached: { config: Config; policy: AddressPolicy } | undefined;

/**
 * The one address policy every outbound call goes through (scrapes today;
 * webhook deliveries, agent page fetches and SMTP probes later), from
 * OUTBOUND_ALLOWED_ADDRESSES and OUTBOUND_HOST_OVERRIDES (the SCRAPE_
 * names are older aliases, merged in).
 */
export function addressPolicy(): AddressPolicy {
  const config = settings();
  if (cached?.config !== config) {
    const pairs = list(config.OUTBOUND_HOST_OVERRIDES, config.SCRAPE_HOST_OVERRIDES).map(
      (pair) => pair.split('=').map((s) => s.trim().toLowerCase()) as [string, string],
    );
    cached = {
      config,
      policy: {
        allowed: new Set(list(config.OUTBOUND_ALLOWED_ADDRESSES, config.SCRAPE_ALLOWED_ADDRESSES)),
        resolve: resolverWithOverrides(Object.fromEntries(pairs)),
      },
    };
  }
  return cached.policy;
}
