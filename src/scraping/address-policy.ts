import { resolverWithOverrides, type AddressPolicy } from '../../scrapers/url-guard.ts';
import { settings, type Config } from '../config.ts';

const list = (text: string) => text.split(',').map((part) => part.trim()).filter(Boolean);

let cached: { config: Config; policy: AddressPolicy } | undefined;

/** The scrape address policy from SCRAPE_ALLOWED_ADDRESSES and SCRAPE_HOST_OVERRIDES. */
export function addressPolicy(): AddressPolicy {
  const config = settings();
  if (cached?.config !== config) {
    const overrides = Object.fromEntries(list(config.SCRAPE_HOST_OVERRIDES).map((pair) => pair.split('=').map((s) => s.trim().toLowerCase()) as [string, string]));
    cached = { config, policy: { allowed: new Set(list(config.SCRAPE_ALLOWED_ADDRESSES)), resolve: resolverWithOverrides(overrides) } };
  }
  return cached.policy;
}
