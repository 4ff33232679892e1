import { Configuration, log, LogLevel, PlaywrightCrawler } from '@crawlee/playwright';
import { gotScraping } from 'got-scraping';
import { chromium, type Route } from 'playwright-core';
import { crawlConfiguration, crawlGotOptions, createCrawlSession } from './crawl-session.ts';
import type { CrawlOptions, CrawlResult } from './crawl-types.ts';

log.setLevel(LogLevel.OFF);

/**
 * Chromium fetches nothing itself: its own name resolution is switched off
 * and every request of the page is answered through the guarded HTTP
 * client, so the address guard sees each connection, redirects included.
 */
async function fulfillGuarded(route: Route, options: CrawlOptions, onNavigationError: (error: unknown) => void) {
  const request = route.request();
  if (!/^https?:/.test(request.url())) return route.continue();
  try {
    const guarded = crawlGotOptions(options);
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
    if (request.isNavigationRequest()) onNavigationError(error);
    await route.abort('blockedbyclient');
  }
}

/**
 * Crawls with Crawlee's PlaywrightCrawler on the system Chromium, for pages
 * whose content appears only after JavaScript runs. Same contract as
 * crawlHttp: the caller gets the data and the pages it paid for.
 */
export async function crawlBrowser(options: CrawlOptions & { chromiumPath: string }): Promise<CrawlResult> {
  const session = createCrawlSession(options);
  // One page at a time: why the guarded client failed the current page's own navigation, which Chromium reports only as aborted.
  let navigationError: unknown;
  const crawler = new PlaywrightCrawler(
    {
      ...session.crawlerLimits,
      browserPoolOptions: { useFingerprints: false },
      launchContext: {
        launcher: chromium,
        // The pages of a run share one context, as a browser's tabs do (Crawlee's default): a context of its own for
        // each page cost Chromium as much as the page (the engine ran at half plain Crawlee's pace). Nothing passes
        // between runs: each run launches its own browser, with a temporary profile Playwright deletes at close.
        useIncognitoPages: false,
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
            // WebRTC's STUN/ICE traffic would go out over UDP, past both the resolver rules and page routing.
            '--webrtc-ip-handling-policy=disable_non_proxied_udp',
            '--force-webrtc-ip-handling-policy',
          ],
        },
      },
      preNavigationHooks: [
        async ({ page }) => {
          navigationError = undefined;
          await page.route('**/*', (route: Route) => fulfillGuarded(route, options, (error) => (navigationError = error)));
        },
      ],
      requestHandler: async ({ page, request, response }) => {
        if (!response || response.status() >= 400)
          return session.failed(request.url, response ? `HTTP ${response.status()}` : 'no response');
        if (options.waitFor) await page.waitForSelector(options.waitFor, { timeout: options.timeoutMs });
        const paid = await session.fetched(request, response.url(), await page.content(), (next) => crawler.addRequests(next));
        if (!paid) await crawler.autoscaledPool?.abort();
      },
      failedRequestHandler: async ({ request }, error) => session.failedWith(request.url, error, navigationError),
    },
    new Configuration(crawlConfiguration),
  );
  try {
    session.onCancel(() => crawler.autoscaledPool?.abort());
    return await session.run((starts) => crawler.run(starts));
  } finally {
    await crawler.teardown();
  }
}
