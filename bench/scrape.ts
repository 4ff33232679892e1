/**
 * Scraping throughput on loopback sites, through the whole service (API +
 * worker, credits, database) against plain Crawlee crawlers doing the same
 * extraction (the floor), first on an empty store, then again after
 * BENCH_HISTORY finished runs are stored (a deployment that has aged); then
 * published-endpoint cache hits per second beside GET /api/user, with
 * requests spread over many keys under the real per-minute limit; last, a
 * sitemap crawl of BENCH_SITEMAP_PAGES pages (one run: robots.txt, a gzipped
 * sitemap behind an index, a path pattern) beside a plain CheerioCrawler
 * fetching the same pages.
 *
 *   npm run bench:scrape     # BENCH_HTTP_PAGES=1000 BENCH_BROWSER_PAGES=50 BENCH_HISTORY=5000 BENCH_SECONDS=10 BENCH_SITEMAP_PAGES=1000
 *
 * Everything runs on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { log, LogLevel } from '@crawlee/cheerio';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { setBalances } from '../src/credits/credits.service.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { catalogueSite, crawlSite, serveFixture } from '../test/support/fixture-sites.ts';
import { freePort, startService } from '../test/support/processes.ts';
import { catalogueRules } from '../test/support/scraping.ts';
import { floorCrawl, floorSitemapCrawl } from './support-crawlee-floor.ts';
import { formatFigures, loadWithKeys, rateLimitPerMinute } from './support-load.ts';
import { descendantsRssMiB, scriptNodeFlags, statusMiB } from './support-process.ts';
import { seedFinishedRuns } from './support-scrape-history.ts';
import { benchStore, createKeys } from './support-store.ts';

log.setLevel(LogLevel.OFF);

const httpPages = Number(process.env.BENCH_HTTP_PAGES ?? 1000);
const browserPages = Number(process.env.BENCH_BROWSER_PAGES ?? 50);
const history = Number(process.env.BENCH_HISTORY ?? 5000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const sitemapPages = Number(process.env.BENCH_SITEMAP_PAGES ?? 1000);
const connections = 32;
const chainLength = 100; // a run follows at most 100 pages
const parallelRuns = 5; // the worker's default concurrency

const site = await serveFixture(catalogueSite({ pages: Math.max(httpPages, browserPages), perPage: 10 }));
const sitemapSite = await serveFixture(crawlSite({ posts: sitemapPages, shop: 0 }));
const store = benchStore('scrape');
const database = await store.open();
await connectDatabase(database.uri);
const { workspaceId } = await createWorkspace({ name: 'Bench', plan: 'business', email: 'bench@example.test' });
await setBalances(workspaceId, { crawl: 10_000_000 });
const loadKeys = await createKeys(workspaceId, 50 * seconds * 2, 'load');

const port = await freePort();
const service = await startService(
  process.execPath,
  // As `npm start` runs it: its peak RSS is the product's.
  [...scriptNodeFlags('start'), 'src/main.ts', 'start'],
  {
    MONGODB_URI: database.uri,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    PORT: String(port),
    OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute),
    LOG_LEVEL: 'warn',
    WORKER_CONCURRENCY: String(parallelRuns),
    // The floor crawls `parallelRuns` chains of one host at once; the service may too (its default is 2 per host).
    SCRAPE_HOST_CONCURRENCY: String(parallelRuns),
  },
  `http://127.0.0.1:${port}/healthz`,
);
// The crawl phases poll with their own keys, each used well under the limit.
const pollKeys = await createKeys(workspaceId, 400, 'poll');
let pollCalls = 0;
const api = async (method: string, path: string, body?: unknown) => {
  const key = pollKeys[pollCalls++ % pollKeys.length];
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
};
/** Peak RSS in MiB: the service's over the run and during the browser runs, and its Chromium processes' (summed) then. */
const peakRss = { run: 0, browser: 0, chromium: 0 };
const sampleRss = (phase?: 'http' | 'browser') => {
  const own = statusMiB(service.pid!, 'VmRSS');
  peakRss.run = Math.max(peakRss.run, own);
  if (phase !== 'browser') return;
  peakRss.browser = Math.max(peakRss.browser, own);
  peakRss.chromium = Math.max(peakRss.chromium, descendantsRssMiB(service.pid!));
};

async function serviceCrawl(engine: 'http' | 'browser', pages: number): Promise<number> {
  const scraper = (
    await api('POST', '/api/scrapers', {
      name: engine,
      engine,
      extract: catalogueRules,
      follow: { next: 'a.next', max_pages: chainLength },
    })
  ).body.scraper;
  const started = performance.now();
  const runIds: string[] = [];
  for (let first = 1; first <= pages; first += chainLength) {
    const res = await api('POST', `/api/scrape/${scraper.id}`, {
      url: `${site.origin}/catalogue?page=${first}`,
      options: { max_pages: Math.min(chainLength, pages - first + 1) },
    });
    runIds.push(res.body.data.runId);
  }
  let fetched = 0;
  for (const runId of runIds) {
    for (;;) {
      sampleRss(engine);
      const run = (await api('GET', `/api/scrape/runs/${runId}`)).body;
      if (run.status === 'completed') {
        fetched += run.pages;
        break;
      }
      if (run.status === 'failed') throw new Error(`run failed: ${run.error}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (fetched !== pages) throw new Error(`fetched ${fetched} of ${pages} pages`);
  return pages / ((performance.now() - started) / 1000);
}

const crawlRow = async (engine: 'http' | 'browser', pages: number, label: string) => {
  const floor = await floorCrawl(engine, pages, site.origin, { chainLength, parallelRuns });
  const ours = await serviceCrawl(engine, pages);
  console.log(
    `${engine.padEnd(8)} ${String(pages).padStart(5)} pages  ${label.padEnd(22)} service ${ours.toFixed(1).padStart(7)} pages/s   plain Crawlee ${floor.toFixed(1).padStart(7)} pages/s   ${(ours / floor).toFixed(2)}x floor`,
  );
};

// Both sides crawl once unmeasured first, so neither pays for its JIT warm-up in the figures.
await floorCrawl('http', 2 * chainLength, site.origin, { chainLength, parallelRuns });
await serviceCrawl('http', 2 * chainLength);
for (const [engine, pages] of [
  ['http', httpPages],
  ['browser', browserPages],
] as const)
  await crawlRow(engine, pages, 'empty store');
const historyScraper = (await api('POST', '/api/scrapers', { name: 'history', extract: catalogueRules })).body.scraper;
console.log(
  `\nseeding ${history} finished runs (results and events included)... ${(await seedFinishedRuns(workspaceId, historyScraper.id, history, site.origin)).toFixed(1)} s`,
);
for (const [engine, pages] of [
  ['http', httpPages],
  ['browser', browserPages],
] as const)
  await crawlRow(engine, pages, `${history} runs stored`);

// Published endpoint: cache hits against the cheapest authenticated call, each over its own half of the keys.
await api('POST', '/api/endpoints', {
  slug: 'bench',
  name: 'Bench',
  scraper_id: historyScraper.id,
  url_template: `${site.origin}/catalogue?page={page}`,
  param_schema: { type: 'object', properties: { page: { type: 'integer' } } },
});
const warm = await api('GET', '/v1/e/bench?page=1');
if (warm.status !== 200) throw new Error(`endpoint answered ${warm.status}`);
const half = loadKeys.length / 2;
for (const [name, path, keys] of [
  ['GET /v1/e/bench?page=1 (cache hit)', '/v1/e/bench?page=1', loadKeys.slice(0, half)],
  ['GET /api/user', '/api/user', loadKeys.slice(half)],
] as const) {
  const figures = await loadWithKeys({ url: `http://127.0.0.1:${port}${path}`, keys: [...keys], connections, seconds });
  sampleRss();
  console.log(formatFigures(name, figures));
}
// A sitemap crawl: one run over the site's posts, found through robots.txt, a sitemap index and a gzipped sitemap.
const sitemapFloor = await floorSitemapCrawl(`${sitemapSite.origin}/sitemaps/blog.xml.gz`, sitemapPages);
const sitemapScraper = (
  await api('POST', '/api/scrapers', {
    name: 'sitemap',
    extract: { fields: { title: { selector: 'h1' } } },
    crawl: { start: 'sitemap', include: ['/blog/post-*'], max_pages: sitemapPages },
  })
).body.scraper;
const sitemapStarted = performance.now();
const sitemapRunId = (await api('POST', `/api/scrape/${sitemapScraper.id}`, { url: `${sitemapSite.origin}/` })).body.data.runId;
for (;;) {
  sampleRss();
  const run = (await api('GET', `/api/scrape/runs/${sitemapRunId}`)).body;
  if (run.status === 'completed' && run.pages === sitemapPages) break;
  if (run.status !== 'queued' && run.status !== 'running')
    throw new Error(`sitemap run ${run.status} with ${run.pages} pages: ${run.error}`);
  await new Promise((r) => setTimeout(r, 100));
}
const sitemapRate = sitemapPages / ((performance.now() - sitemapStarted) / 1000);
console.log(
  `\nsitemap ${String(sitemapPages).padStart(5)} pages  one crawl run          service ${sitemapRate.toFixed(1).padStart(7)} pages/s   plain Crawlee ${sitemapFloor.toFixed(1).padStart(7)} pages/s   ${(sitemapRate / sitemapFloor).toFixed(2)}x floor`,
);

console.log(
  `\nservice (API + worker, one process as \`npm start\` runs it) peak RSS ${peakRss.run.toFixed(0)} MiB, ` +
    `during the browser runs ${peakRss.browser.toFixed(0)} MiB (its Chromium processes beside it, summed: ${peakRss.chromium.toFixed(0)} MiB); store: ${store.name}; ${parallelRuns} runs at a time (SCRAPE_HOST_CONCURRENCY ${parallelRuns}), ${chainLength} pages a run; ${connections} connections, ${seconds} s, rate limit ${rateLimitPerMinute}/min per key`,
);

await service.stop();
await disconnectDatabase();
await database.stop();
await site.close();
await sitemapSite.close();
store.remove();
process.exit(0);
