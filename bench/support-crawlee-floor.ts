/**
 * The floor of bench/scrape: plain Crawlee crawlers following the same
 * chains of next links with the same extraction, storing and charging
 * nothing.
 */
import { gunzipSync } from 'node:zlib';
import { CheerioCrawler, Configuration } from '@crawlee/cheerio';
import { PlaywrightCrawler } from '@crawlee/playwright';
import { chromium } from 'playwright-core';
import { extractFromHtml, nextPageUrl } from '../scrapers/extract.ts';
import { catalogueRules } from '../test/support/scraping.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Crawls `pages` pages as chains of `chainLength`, `parallelRuns` chains at a time; returns pages per second. */
export async function floorCrawl(
  engine: 'http' | 'browser',
  pages: number,
  origin: string,
  { chainLength, parallelRuns }: { chainLength: number; parallelRuns: number },
): Promise<number> {
  const chains = Array.from({ length: Math.ceil(pages / chainLength) }, (_, i) => i * chainLength + 1);
  const started = performance.now();
  let fetched = 0;
  const crawlChain = async (first: number) => {
    const limit = Math.min(chainLength, pages - first + 1);
    const handle = async (html: string, url: string, enqueue: (u: string) => Promise<unknown>, index: number) => {
      extractFromHtml(html, url, catalogueRules);
      fetched++;
      const next = nextPageUrl(html, url, 'a.next');
      if (next && index + 1 < limit) await enqueue(next);
    };
    const config = new Configuration({ persistStorage: false });
    const crawler =
      engine === 'http'
        ? new CheerioCrawler(
            {
              maxConcurrency: 1,
              requestHandler: async ({ request, body, crawler: c }) =>
                handle(
                  body.toString(),
                  request.url,
                  (u) => c.addRequests([{ url: u, userData: { i: request.userData.i + 1 } }]),
                  request.userData.i,
                ),
            },
            config,
          )
        : new PlaywrightCrawler(
            {
              maxConcurrency: 1,
              browserPoolOptions: { useFingerprints: false },
              launchContext: {
                launcher: chromium,
                launchOptions: { executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-background-networking'] },
              },
              requestHandler: async ({ request, page, crawler: c }) =>
                handle(
                  await page.content(),
                  request.url,
                  (u) => c.addRequests([{ url: u, userData: { i: request.userData.i + 1 } }]),
                  request.userData.i,
                ),
            },
            config,
          );
    await crawler.run([{ url: `${origin}/catalogue?page=${first}`, userData: { i: 0 } }]);
  };
  for (let i = 0; i < chains.length; i += parallelRuns) await Promise.all(chains.slice(i, i + parallelRuns).map(crawlChain));
  if (fetched !== pages) throw new Error(`floor fetched ${fetched} of ${pages} pages`);
  return pages / ((performance.now() - started) / 1000);
}

/**
 * The floor of the sitemap crawl: a plain CheerioCrawler, one page at a time as the service's crawl goes, over the
 * pages the site's (gzipped) sitemap lists (read with fetch, its `<loc>`s taken as they are), extracting each page's `h1`.
 */
export async function floorSitemapCrawl(sitemapUrl: string, pages: number): Promise<number> {
  const started = performance.now();
  const bytes = Buffer.from(await (await fetch(sitemapUrl)).arrayBuffer());
  const xml = (sitemapUrl.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
  const urls = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!).slice(0, pages);
  let fetched = 0;
  const crawler = new CheerioCrawler(
    {
      maxConcurrency: 1,
      requestHandler: async ({ request, body }) => {
        extractFromHtml(body.toString(), request.url, { fields: { title: { selector: 'h1', all: false, type: 'string' } } });
        fetched++;
      },
    },
    new Configuration({ persistStorage: false }),
  );
  await crawler.run(urls);
  if (fetched !== pages) throw new Error(`floor fetched ${fetched} of ${pages} pages`);
  return pages / ((performance.now() - started) / 1000);
}
