import { describe, expect, it } from 'vitest';
import { crawlHttp } from '../../scrapers/http-crawl.ts';
import type { CrawlOptions } from '../../scrapers/crawl-types.ts';
import { resolverWithOverrides, type AddressPolicy } from '../../outbound/address-guard.ts';
import { useCatalogueAndForbiddenSites } from '../support/fixture-sites.ts';
import { catalogueRules } from '../support/scraping.ts';

// Only 127.0.0.1 is exempt; 127.0.0.2 and fixture.test (-> 127.0.0.3) stand for forbidden targets.
const policy: AddressPolicy = {
  allowed: new Set(['127.0.0.1']),
  resolve: resolverWithOverrides({ 'fixture.test': '127.0.0.3' }, async () => []),
};

const sites = useCatalogueAndForbiddenSites();

const rules = catalogueRules;

const crawl = (overrides: Partial<CrawlOptions>) => {
  const charged: string[] = [];
  const options: CrawlOptions = {
    startUrl: `${sites.site.origin}/catalogue?page=1`,
    rules,
    follow: { next: 'a.next', max_pages: 10 },
    maxPages: 10,
    timeoutMs: 5000,
    respectRobots: true,
    policy,
    tls: { verify: true },
    maxResponseBytes: 1_000_000,
    chargePage: async ({ url }) => {
      charged.push(url);
      return true;
    },
    ...overrides,
  };
  return crawlHttp(options).then((result) => ({ ...result, charged }));
};

describe('HTTP crawl', () => {
  it('follows next links, concatenating items in page order, and charges each page once', async () => {
    const result = await crawl({});
    expect(result.pages).toHaveLength(4);
    expect(result.charged).toEqual(result.pages);
    const items = (result.data as { items: Array<{ title: string; price: number; link: string }> }).items;
    expect(items).toHaveLength(12);
    expect(items[0]).toEqual({ title: 'Product 1', price: 1001.5, link: `${sites.site.origin}/p/1` });
    expect(items.map((i) => i.title).at(-1)).toBe('Product 12');
    expect(result.failures).toEqual([]);
  });

  it('stops at maxPages', async () => {
    const result = await crawl({ maxPages: 2 });
    expect(result.pages).toHaveLength(2);
    expect((result.data as { items: unknown[] }).items).toHaveLength(6);
  });

  it('stops when a page cannot be paid for, dropping that page', async () => {
    let budget = 2;
    const result = await crawl({ chargePage: async () => budget-- > 0 });
    expect(result.stoppedBy).toBe('credits');
    expect(result.pages).toHaveLength(2);
    expect((result.data as { items: unknown[] }).items).toHaveLength(6);
  });

  it('does not charge pages that fail', async () => {
    for (const path of ['/missing', '/broken']) {
      const result = await crawl({ startUrl: `${sites.site.origin}${path}` });
      expect(result.charged, path).toEqual([]);
      expect(result.failures[0]?.reason, path).toMatch(/404|500/);
    }
  });

  it('respects robots.txt unless told not to', async () => {
    const blocked = await crawl({ startUrl: `${sites.site.origin}/private/catalogue?page=1` });
    expect(blocked.pages).toEqual([]);
    expect(blocked.stoppedBy).toBe('robots');
    expect(sites.site.hits).not.toContain('/private/catalogue?page=1');
    const allowed = await crawl({ startUrl: `${sites.site.origin}/private/catalogue?page=1`, respectRobots: false, maxPages: 1 });
    expect(allowed.pages).toHaveLength(1);
  });

  it('refuses a redirect to a forbidden address before connecting to it', async () => {
    const result = await crawl({ startUrl: `${sites.site.origin}/redirect?to=${encodeURIComponent(`${sites.forbidden.origin}/secret`)}` });
    expect(result.pages).toEqual([]);
    expect(result.failures[0]).toMatchObject({ code: 'url_not_allowed' });
    const byName = await crawl({
      startUrl: `${sites.site.origin}/redirect?to=${encodeURIComponent(`http://fixture.test:${sites.forbidden.port}/secret`)}`,
    });
    expect(byName.failures[0]).toMatchObject({ code: 'url_not_allowed' });
    expect(sites.forbidden.hits).toEqual([]);
  });

  it('fails pages over the size cap or the timeout', async () => {
    const huge = await crawl({ startUrl: `${sites.site.origin}/huge`, maxResponseBytes: 100_000 });
    expect(huge.charged).toEqual([]);
    expect(huge.failures[0]?.reason).toMatch(/larger than/);
    const slow = await crawl({ startUrl: `${sites.site.origin}/slow?ms=3000`, timeoutMs: 1000 });
    expect(slow.charged).toEqual([]);
    expect(slow.failures).toHaveLength(1);
  });
});
