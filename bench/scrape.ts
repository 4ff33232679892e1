/**
 * Scraping throughput on loopback sites, through the whole service (API +
 * worker, credits, database) against plain Crawlee crawlers doing the same
 * extraction (the floor), plus published-endpoint cache hits per second.
 *
 *   npm run bench:scrape            # BENCH_HTTP_PAGES=1000 BENCH_BROWSER_PAGES=50 BENCH_SECONDS=10
 *
 * Everything runs on 127.0.0.1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheerioCrawler, Configuration as CheerioConfiguration, log, LogLevel } from '@crawlee/cheerio';
import { PlaywrightCrawler } from '@crawlee/playwright';
import autocannon from 'autocannon';
import { chromium } from 'playwright-core';
import { extractFromHtml, nextPageUrl } from '../scrapers/extract.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { setBalances } from '../src/credits/credits.service.ts';
import { startEmbeddedFerretDb } from '../src/db/embedded-ferretdb.ts';
import { createWorkspace } from '../src/workspaces/workspace.service.ts';
import { catalogueSite, serveFixture } from '../test/support/fixture-sites.ts';
import { freePort, startService } from '../test/support/processes.ts';
import { catalogueRules } from '../test/support/scraping.ts';

log.setLevel(LogLevel.OFF);

const httpPages = Number(process.env.BENCH_HTTP_PAGES ?? 1000);
const browserPages = Number(process.env.BENCH_BROWSER_PAGES ?? 50);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const chainLength = 100; // a run follows at most 100 pages
const parallelRuns = 5; // the worker's default concurrency

const rules = catalogueRules;

const site = await serveFixture(catalogueSite({ pages: Math.max(httpPages, browserPages), perPage: 10 }));
const dataDir = mkdtempSync(join(tmpdir(), 'leadops-bench-scrape-'));
const database = await startEmbeddedFerretDb({ dataDir, log: console.log });
await connectDatabase(database.uri);
const { workspaceId, apiKey } = await createWorkspace({ name: 'Bench', plan: 'business', email: 'bench@example.test' });
await setBalances(workspaceId, { crawl: 1_000_000 });
await disconnectDatabase();

const port = await freePort();
const service = await startService(
  process.execPath,
  ['src/main.ts', 'start'],
  { MONGODB_URI: database.uri, PORT: String(port), SCRAPE_ALLOWED_ADDRESSES: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'warn', WORKER_CONCURRENCY: String(parallelRuns) },
  `http://127.0.0.1:${port}/healthz`,
);
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json() };
};
let peakRss = 0;
const sampleRss = () => {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${service.pid}/status`, 'utf8'))![1]);
  peakRss = Math.max(peakRss, kib / 1024);
};

async function serviceCrawl(engine: 'http' | 'browser', pages: number): Promise<number> {
  const scraper = (await api('POST', '/api/scrapers', { name: engine, engine, extract: rules, follow: { next: 'a.next', max_pages: chainLength } })).body.scraper;
  const started = performance.now();
  const runIds: string[] = [];
  for (let first = 1; first <= pages; first += chainLength) {
    const res = await api('POST', `/api/scrape/${scraper.id}`, { url: `${site.origin}/catalogue?page=${first}`, options: { max_pages: Math.min(chainLength, pages - first + 1) } });
    runIds.push(res.body.data.runId);
  }
  let fetched = 0;
  for (const runId of runIds) {
    for (;;) {
      sampleRss();
      const run = (await api('GET', `/api/scrape/runs/${runId}`)).body;
      if (run.status === 'completed') {
        fetched += run.pages;
        break;
      }
      if (run.status === 'failed') throw new Error(`run failed: ${run.error}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  if (fetched !== pages) throw new Error(`fetched ${fetched} of ${pages} pages`);
  return pages / ((performance.now() - started) / 1000);
}

/** Plain Crawlee: the same chains of next links, the same extraction, nothing stored or charged. */
async function floorCrawl(engine: 'http' | 'browser', pages: number): Promise<number> {
  const chains = Array.from({ length: Math.ceil(pages / chainLength) }, (_, i) => i * chainLength + 1);
  const started = performance.now();
  let fetched = 0;
  const crawlChain = async (first: number) => {
    const limit = Math.min(chainLength, pages - first + 1);
    const handle = async (html: string, url: string, enqueue: (u: string) => Promise<unknown>, index: number) => {
      extractFromHtml(html, url, rules);
      fetched++;
      const next = nextPageUrl(html, url, 'a.next');
      if (next && index + 1 < limit) await enqueue(next);
    };
    const config = new CheerioConfiguration({ persistStorage: false });
    const crawler =
      engine === 'http'
        ? new CheerioCrawler(
            {
              maxConcurrency: 1,
              requestHandler: async ({ request, body, crawler: c }) =>
                handle(body.toString(), request.url, (u) => c.addRequests([{ url: u, userData: { i: request.userData.i + 1 } }]), request.userData.i),
            },
            config,
          )
        : new PlaywrightCrawler(
            {
              maxConcurrency: 1,
              browserPoolOptions: { useFingerprints: false },
              launchContext: { launcher: chromium, launchOptions: { executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-background-networking'] } },
              requestHandler: async ({ request, page, crawler: c }) =>
                handle(await page.content(), request.url, (u) => c.addRequests([{ url: u, userData: { i: request.userData.i + 1 } }]), request.userData.i),
            },
            config,
          );
    await crawler.run([{ url: `${site.origin}/catalogue?page=${first}`, userData: { i: 0 } }]);
  };
  for (let i = 0; i < chains.length; i += parallelRuns) await Promise.all(chains.slice(i, i + parallelRuns).map(crawlChain));
  if (fetched !== pages) throw new Error(`floor fetched ${fetched} of ${pages} pages`);
  return pages / ((performance.now() - started) / 1000);
}

const rows: string[] = [];
for (const [engine, pages] of [['http', httpPages], ['browser', browserPages]] as const) {
  const floor = await floorCrawl(engine, pages);
  const ours = await serviceCrawl(engine, pages);
  rows.push(`${engine.padEnd(8)} ${String(pages).padStart(5)} pages   service ${ours.toFixed(1).padStart(7)} pages/s   plain Crawlee ${floor.toFixed(1).padStart(7)} pages/s   ${(ours / floor).toFixed(2)}x floor`);
  console.log(rows.at(-1));
}

// Published endpoint: cache hits against the cheapest authenticated call.
const scraper = (await api('POST', '/api/scrapers', { name: 'one', extract: rules })).body.scraper;
await api('POST', '/api/endpoints', { slug: 'bench', name: 'Bench', scraper_id: scraper.id, url_template: `${site.origin}/catalogue?page={page}`, param_schema: { type: 'object', properties: { page: { type: 'integer' } } } });
const warm = await api('GET', '/v1/e/bench?page=1');
if (warm.status !== 200) throw new Error(`endpoint answered ${warm.status}`);
const load = async (path: string) => {
  const result = await autocannon({ url: `http://127.0.0.1:${port}${path}`, headers: { authorization: `Bearer ${apiKey}` }, connections: 32, duration: seconds });
  sampleRss();
  return `${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms${result.non2xx ? `  (${result.non2xx} non-2xx)` : ''}`;
};
console.log(`GET /v1/e/bench?page=1 (cache hit)   ${await load('/v1/e/bench?page=1')}`);
console.log(`GET /api/user                        ${await load('/api/user')}`);
console.log(`\nservice (API + worker) peak RSS ${peakRss.toFixed(0)} MiB; store: embedded FerretDB 1.24 (SQLite); ${parallelRuns} runs at a time, ${chainLength} pages a run`);

await service.stop();
await database.stop();
await site.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
