import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalances } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { crawlSite, serveFixture, type FixtureSite } from '../support/fixture-sites.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

const server = useApiServer(scrapeEnv, { worker: true });
let site: FixtureSite;
let elsewhere: FixtureSite;

beforeAll(async () => {
  site = await serveFixture(crawlSite({ posts: 6, shop: 4 }));
  elsewhere = await serveFixture((_req, res) => res.end('<h1>Elsewhere</h1>'), '127.0.0.2', 0);
});
afterAll(async () => {
  await site.close();
  await elsewhere.close();
});

const pageTitles = { fields: { title: { selector: 'h1' } } };

async function crawl(crawlRules: Record<string, unknown>, url = `${site.origin}/`) {
  const { apiKey, workspaceId } = await createTestWorkspace();
  const scraperId = await createScraper(server, apiKey, { name: 'Crawl', extract: pageTitles, crawl: crawlRules });
  const hitsBefore = site.hits.length;
  const res = await server.request('POST', `/api/scrape/${scraperId}`, { key: apiKey, body: { url } });
  expect(res.status).toBe(202);
  const run = await waitForRun(server, apiKey, res.body.data.runId);
  const data = await server.request('GET', `/api/${scraperId}/data/${run.id}`, { key: apiKey });
  return { run, data, hits: site.hits.slice(hitsBefore), balance: (await getBalances(workspaceId)).crawl, apiKey, scraperId };
}

describe('crawls from sitemaps', () => {
  it('reads robots.txt sitemaps (an index, gzip) and /sitemap.xml, fetching only the pages the patterns pass, one credit each', async () => {
    const { run, data, hits, balance } = await crawl({ start: 'sitemap', include: ['/blog/**'], exclude: ['/blog/private/**'] });
    const posts = [1, 2, 3, 4, 5, 6].map((n) => ({ title: `Post ${n}` }));
    expect(run).toMatchObject({ status: 'completed', pages: 6, pagesCharged: 6, creditsCharged: 6 });
    expect(data.status).toBe(200);
    expect(data.body).toEqual({ items: posts });
    expect(balance).toBe(94);
    expect(hits).toEqual(expect.arrayContaining(['/robots.txt', '/sitemaps/index.xml', '/sitemaps/blog.xml.gz', '/sitemaps/shop.xml']));
    // Excluded pages (and pages the patterns leave out) are never fetched.
    expect(hits.filter((path) => /private|shop\/item|about/.test(path))).toEqual([]);
  });

  it('takes every listed page without patterns, up to max_pages', async () => {
    const all = await crawl({ start: 'sitemap' });
    // robots.txt disallows the private posts: listed, never fetched.
    expect(all.run.pages).toBe(11); // 6 posts, 4 shop items, /about
    expect(all.hits.filter((path) => path.includes('private'))).toEqual([]);
    expect(all.data.body.items).toContainEqual({ title: 'About' });
    const capped = await crawl({ start: 'sitemap', include: ['/shop/*'], max_pages: 2 });
    expect(capped.data.body).toEqual({ items: [{ title: 'Item 1' }, { title: 'Item 2' }] });
    expect(capped.hits.filter((path) => path.startsWith('/shop/'))).toEqual(['/shop/item-1', '/shop/item-2']);
  });

  it('fails a sitemap crawl whose patterns leave no page, charging nothing', async () => {
    const { run, balance } = await crawl({ start: 'sitemap', include: ['/nothing/**'] });
    expect(run).toMatchObject({ status: 'failed', pages: 0, creditsCharged: 0 });
    expect(run.failures).toContainEqual({ url: `${site.origin}/sitemap.xml`, reason: expect.stringContaining('no page') });
    expect(balance).toBe(100);
  });
});

describe('crawls by links', () => {
  it('follows links on the same host to max_depth, within the patterns', async () => {
    const { run, data, hits } = await crawl({ start: 'links', include: ['/blog/*'], max_depth: 3 });
    // Depth 0 is the run's URL; post-1 is 1 link away, post-3 is 3.
    expect(data.body).toEqual({ items: [{ title: 'Home' }, { title: 'Post 1' }, { title: 'Post 2' }, { title: 'Post 3' }] });
    expect(run).toMatchObject({ status: 'completed', pages: 4, creditsCharged: 4 });
    expect(hits.filter((path) => path !== '/robots.txt')).toEqual(['/', '/blog/post-1', '/blog/post-2', '/blog/post-3']);
    expect(elsewhere.hits).toEqual([]);
  });

  it('reads only the start page at depth 0, and never fetches excluded or robots-disallowed pages', async () => {
    const zero = await crawl({ max_depth: 0 });
    expect(zero.data.body).toEqual({ items: [{ title: 'Home' }] });
    const { data, hits } = await crawl({ exclude: ['/shop/**', '/about'], max_depth: 20, max_pages: 50 });
    expect(data.body.items).toHaveLength(7); // home and the 6 posts
    expect(hits.filter((path) => /shop|about|private/.test(path))).toEqual([]);
  });

  it('refuses bad crawl rules, naming the field', async () => {
    const { apiKey } = await createTestWorkspace();
    for (const [body, field] of [
      [{ crawl: { include: ['blog/**'] } }, 'crawl.include.0'],
      [{ crawl: { max_pages: 10_001 } }, 'crawl.max_pages'],
      [{ crawl: { max_depth: 21 } }, 'crawl.max_depth'],
      [{ crawl: {}, follow: { next: 'a.next', max_pages: 2 } }, 'crawl'],
    ] as const) {
      const res = await server.request('POST', '/api/scrapers', { key: apiKey, body: { name: 'Bad', extract: pageTitles, ...body } });
      expect(res.status, field).toBe(400);
      expect(JSON.stringify(res.body), field).toContain(field);
    }
  });
});
