import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlHttp } from '../../scrapers/http-crawl.ts';
import type { CrawlOptions } from '../../scrapers/crawl-types.ts';
import type { AddressPolicy } from '../../outbound/address-guard.ts';
import { catalogueSite } from '../support/fixture-sites.ts';
import { catalogueRules } from '../support/scraping.ts';
import { selfSignedCertificate, serveTls, tripwire, type TlsSite, type Tripwire } from '../support/tls-sites.ts';

// The site is on 127.0.0.3, the only address the guard allows. Every refused address a host could lead to
// (the system resolver's answer for localhost, 127.0.0.2) has a tripwire on the site's port.
const trusted = selfSignedCertificate(['localhost', 'site.test', 'rebind.test', 'refused.test']);
const untrusted = selfSignedCertificate(['localhost', 'site.test']);
let site: TlsSite;
let untrustedSite: TlsSite;
let closingSite: TlsSite;
const wires: Tripwire[] = [];

beforeAll(async () => {
  site = await serveTls(catalogueSite({ pages: 2 }), trusted, '127.0.0.3');
  untrustedSite = await serveTls(catalogueSite({ pages: 1 }), untrusted, '127.0.0.3');
  closingSite = await serveTls(catalogueSite({ pages: 2 }), trusted, '127.0.0.3', { closeConnections: true });
  for (const port of [site.port, untrustedSite.port, closingSite.port]) {
    wires.push(await tripwire('127.0.0.1', port), await tripwire('127.0.0.2', port));
  }
});
afterAll(async () => {
  await site?.close();
  await untrustedSite?.close();
  await closingSite?.close();
  await Promise.all(wires.map((wire) => wire.close()));
});

const reachedRefused = () => wires.reduce((sum, wire) => sum + wire.connections(), 0);

/** The guard's resolver: localhost and site.test are the allowed site; rebind.test answers it once, then a refused address. */
function policy(): AddressPolicy & { rebindAnswers(): number } {
  let rebindAnswers = 0;
  return {
    rebindAnswers: () => rebindAnswers,
    allowed: new Set(['127.0.0.3']),
    resolve: async (host) => {
      if (host === 'rebind.test') return rebindAnswers++ === 0 ? ['127.0.0.3'] : ['127.0.0.2'];
      if (host === 'refused.test') return ['127.0.0.2'];
      return ['127.0.0.3'];
    },
  };
}

const crawl = (startUrl: string, overrides: Partial<CrawlOptions> = {}) =>
  crawlHttp({
    startUrl,
    rules: catalogueRules,
    follow: { next: 'a.next', max_pages: 5 },
    maxPages: 5,
    timeoutMs: 5000,
    respectRobots: true,
    policy: policy(),
    tls: { verify: true, ca: [trusted.cert] },
    maxResponseBytes: 1_000_000,
    chargePage: async () => true,
    ...overrides,
  });

describe('https crawls', () => {
  it('connect only to the address the guard approved, protocol negotiation included', async () => {
    // The system resolver answers 127.0.0.1 for localhost; the guard answers 127.0.0.3.
    const result = await crawl(`https://localhost:${site.port}/catalogue?page=1`);
    expect(result.failures).toEqual([]);
    expect(result.pages).toHaveLength(2);
    expect(reachedRefused()).toBe(0);
  });

  it('refuse a host whose answer changes to a refused address between two connections, without connecting to it', async () => {
    // Every answer closes its connection, so the second page needs a new one: its lookup gets the refused address.
    const rebinding = policy();
    const result = await crawl(`https://rebind.test:${closingSite.port}/catalogue?page=1`, { policy: rebinding, respectRobots: false });
    expect(result.pages).toEqual([`https://rebind.test:${closingSite.port}/catalogue?page=1`]);
    expect(result.failures).toEqual([expect.objectContaining({ code: 'url_not_allowed' })]);
    expect(rebinding.rebindAnswers()).toBe(2);
    expect(reachedRefused()).toBe(0);
  });

  it('refuse a next page at a refused IP address, robots.txt included, without connecting to it', async () => {
    const next = encodeURIComponent(`https://127.0.0.2:${site.port}/catalogue?page=2`);
    const result = await crawl(`https://site.test:${site.port}/linking?next=${next}`);
    expect(result.pages).toHaveLength(1);
    expect(result.failures).toEqual([expect.objectContaining({ code: 'url_not_allowed' })]);
    expect(reachedRefused()).toBe(0);
  });

  it('refuse a redirect into a refused address, without connecting to it', async () => {
    const target = encodeURIComponent(`https://refused.test:${site.port}/catalogue`);
    const result = await crawl(`https://site.test:${site.port}/redirect?to=${target}`);
    expect(result.pages).toEqual([]);
    expect(result.failures[0]).toMatchObject({ code: 'url_not_allowed' });
    expect(reachedRefused()).toBe(0);
  });

  it('verify certificates: an untrusted one fails the page with tls_error unless the scraper accepts invalid certificates', async () => {
    const strict = await crawl(`https://site.test:${untrustedSite.port}/catalogue?page=1`);
    expect(strict.pages).toEqual([]);
    expect(strict.failures[0]).toMatchObject({ code: 'tls_error' });
    const noExtraTrust = await crawl(`https://site.test:${site.port}/catalogue?page=1`, { tls: { verify: true } });
    expect(noExtraTrust.failures[0]).toMatchObject({ code: 'tls_error' });
    const lenient = await crawl(`https://site.test:${untrustedSite.port}/catalogue?page=1`, { tls: { verify: false } });
    expect(lenient.failures).toEqual([]);
    expect(lenient.pages).toHaveLength(1);
    expect(reachedRefused()).toBe(0);
  });
});
