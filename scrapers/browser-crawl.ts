import { Configuration, log, LogLevel, PlaywrightCrawler } from '@crawlee/playwright';
import { gotScraping } from 'got-scraping';
import { chromium, type Route } from 'playwright-core';
import type { CrawlOptions, CrawlResult, PageFailure } from './crawl-types.ts';
import { extractFromHtml, mergeExtracts, nextPageUrl, type PageExtract } from './extract.ts';
import { guardedGotOptions } from './http-crawl.ts';
import { createRobotsCheck } from './robots.ts';
import { assertUrlAllowed } from './url-guard.ts';

log.setLevel(LogLevel.OFF);

/**
 * Chromium fetches nothing itself: its own name resolution is switched off
 * and every request of the page is answered through the guarded HTTP
 * client, so the address guard sees each connection, redirects included.
 */
async function fulfillGuarded(route: Route, options: CrawlOptions) {
  const request = route.request();
  if (!/^https?:/.test(request.url())) return route.continue();
  try {
    await assertUrlAllowed(request.url(), options.policy);
    const guarded = guardedGotOptions(options);
    const response = await gotScraping({
      ...guarded,
      url: request.url(),
      method: request.method() as 'GET',
      headers: { ...request.headers(), ...guarded.headers },
      body: request.postDataBuffer() ?? undefined,
      responseType: 'buffer',
      throwHttpErrors: false,
      timeout: { request: options.timeoutMs },
    });
    if (response.rawBody.length > options.maxResponseBytes) throw new Error(`response larger than ${options.maxResponseBytes} bytes`);
    const headers = Object.fromEntries(Object.entries(response.headers).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    await route.fulfill({ status: response.statusCode, headers, body: response.rawBody });
  } catch (error) {
    (request as unknown as { guardError?: Error }).guardError = error as Error;
    await route.abort('blockedbyclient');
  }
}

/**
 * Crawls with Crawlee's PlaywrightCrawler on the system Chromium, for pages
 * whose content appears only after JavaScript runs. Same contract as
 * crawlHttp: the caller gets the data and the pages it paid for.
 */
export async function crawlBrowser(options: CrawlOptions & { chromiumPath: string }): Promise<CrawlResult> {
  const extracts = new Map<number, PageExtract>();
  const pages: string[] = [];
  const failures: PageFailure[] = [];
  let stoppedBy: CrawlResult['stoppedBy'];
  const gotOptions = guardedGotOptions(options);
  const mayCrawl = options.respectRobots
    ? createRobotsCheck(async (url) => {
        const response = await gotScraping({ url, ...gotOptions, throwHttpErrors: false, followRedirect: false, timeout: { request: options.timeoutMs } });
        return { status: response.statusCode, body: String(response.body) };
      }, 'LeadOpsBot')
    : async () => true;

  const crawler = new PlaywrightCrawler(
    {
      maxConcurrency: 1,
      maxRequestRetries: 0,
      maxRequestsPerCrawl: options.maxPages,
      navigationTimeoutSecs: Math.ceil(options.timeoutMs / 1000),
      requestHandlerTimeoutSecs: Math.ceil(options.timeoutMs / 1000) + 5,
      useSessionPool: false,
      persistCookiesPerSession: false,
      browserPoolOptions: { useFingerprints: false },
      launchContext: {
        launcher: chromium,
        useIncognitoPages: true,
        launchOptions: {
          executablePath: options.chromiumPath,
          headless: true,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
            '--host-resolver-rules=MAP * ~NOTFOUND',
          ],
        },
      },
      preNavigationHooks: [
        async ({ page, request }) => {
          await assertUrlAllowed(request.url, options.policy);
          await page.route('**/*', (route: Route) => fulfillGuarded(route, options));
        },
      ],
      requestHandler: async ({ page, request, response }) => {
        const index = request.userData.index as number;
        if (!response || response.status() >= 400) {
          failures.push({ url: request.url, reason: response ? `HTTP ${response.status()}` : 'no response' });
          return;
        }
        if (options.waitFor) await page.waitForSelector(options.waitFor, { timeout: options.timeoutMs });
        const html = await page.content();
        if (!(await options.chargePage(request.url))) {
          stoppedBy = 'credits';
          await crawler.autoscaledPool?.abort();
          return;
        }
        const pageUrl = response.url();
        pages.push(pageUrl);
        extracts.set(index, extractFromHtml(html, pageUrl, options.rules));
        const next = options.follow ? nextPageUrl(html, pageUrl, options.follow.next) : null;
        if (next && index + 1 < options.maxPages) {
          if (await mayCrawl(next)) await crawler.addRequests([{ url: next, uniqueKey: `${index + 1}:${next}`, userData: { index: index + 1 } }]);
          else stoppedBy = 'robots';
        }
      },
      failedRequestHandler: async ({ request }, error) => {
        const guardError = (error as { code?: string }).code === 'url_not_allowed' || /url_not_allowed|scrapes may not reach|ERR_BLOCKED_BY_CLIENT/.test(String(error));
        failures.push({ url: request.url, reason: String((error as Error).message ?? error).split('\n')[0]!, code: guardError ? 'url_not_allowed' : undefined });
      },
    },
    new Configuration({ persistStorage: false, purgeOnStart: false }),
  );

  if (await mayCrawl(options.startUrl)) {
    await crawler.run([{ url: options.startUrl, uniqueKey: `0:${options.startUrl}`, userData: { index: 0 } }]);
  } else {
    stoppedBy = 'robots';
    failures.push({ url: options.startUrl, reason: 'disallowed by robots.txt' });
  }
  await crawler.teardown();
  const ordered = [...extracts.entries()].sort(([a], [b]) => a - b).map(([, extract]) => extract);
  return { data: mergeExtracts(ordered, options.rules), pages, failures, stoppedBy };
}
