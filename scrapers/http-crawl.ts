import { CheerioCrawler, Configuration, log, LogLevel } from '@crawlee/cheerio';
import { gotScraping } from 'got-scraping';
import type { CrawlOptions, CrawlResult, PageFailure } from './crawl-types.ts';
import { extractFromHtml, mergeExtracts, nextPageUrl, type PageExtract } from './extract.ts';
import { createRobotsCheck } from './robots.ts';
import { assertUrlAllowed, guardedLookup, UrlNotAllowedError } from './url-guard.ts';

log.setLevel(LogLevel.OFF);

export const userAgent = 'LeadOpsBot/1.0 (+https://example.invalid/bot)';

/** got options that route every connection, redirects included, through the address guard. */
export function guardedGotOptions(options: Pick<CrawlOptions, 'policy' | 'maxResponseBytes'>) {
  return {
    dnsLookup: guardedLookup(options.policy) as never,
    http2: false,
    headers: { 'user-agent': userAgent },
    hooks: {
      beforeRedirect: [
        async (next: { url?: URL | string }) => {
          if (next.url) await assertUrlAllowed(next.url.toString(), options.policy);
        },
      ],
    },
  };
}

const reasonOf = (error: unknown) => {
  const cause = error as { code?: string; message?: string; cause?: { code?: string } };
  const code = cause.code === 'url_not_allowed' || cause.cause?.code === 'url_not_allowed' || error instanceof UrlNotAllowedError ? 'url_not_allowed' : undefined;
  return { reason: (cause.message ?? String(error)).split('\n')[0]!, code };
};

/**
 * Crawls with Crawlee's CheerioCrawler (plain HTTP, no browser): the start
 * page, then up to `maxPages - 1` next pages one after another, extracting
 * each. Nothing is written anywhere; the caller gets the data and the
 * pages it paid for.
 */
export async function crawlHttp(options: CrawlOptions): Promise<CrawlResult> {
  const extracts = new Map<number, PageExtract>();
  const pages: string[] = [];
  const failures: PageFailure[] = [];
  let stoppedBy: CrawlResult['stoppedBy'];
  const gotOptions = guardedGotOptions(options);
  const mayCrawl = options.respectRobots
    ? createRobotsCheck(async (url) => {
        const response = await gotScraping({ url, ...gotOptions, throwHttpErrors: false, followRedirect: false, timeout: { request: options.timeoutMs } });
        return { status: response.statusCode, body: String(response.body) };
      }, userAgent)
    : async () => true;

  const crawler = new CheerioCrawler(
    {
      maxConcurrency: 1,
      maxRequestRetries: 0,
      maxRequestsPerCrawl: options.maxPages,
      navigationTimeoutSecs: Math.ceil(options.timeoutMs / 1000),
      requestHandlerTimeoutSecs: Math.ceil(options.timeoutMs / 1000) + 5,
      useSessionPool: false,
      persistCookiesPerSession: false,
      preNavigationHooks: [
        async ({ request }, requestOptions) => {
          await assertUrlAllowed(request.url, options.policy);
          Object.assign(requestOptions, gotOptions);
        },
      ],
      postNavigationHooks: [
        async ({ response }) => {
          const declared = Number(response?.headers['content-length'] ?? 0);
          if (declared > options.maxResponseBytes) throw new Error(`response larger than ${options.maxResponseBytes} bytes`);
          let received = 0;
          response?.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > options.maxResponseBytes) response.destroy(new Error(`response larger than ${options.maxResponseBytes} bytes`));
          });
        },
      ],
      requestHandler: async ({ request, response, body }) => {
        const index = request.userData.index as number;
        if ((response.statusCode ?? 0) >= 400) {
          failures.push({ url: request.url, reason: `HTTP ${response.statusCode}` });
          return;
        }
        if (!(await options.chargePage(request.url))) {
          stoppedBy = 'credits';
          await crawler.autoscaledPool?.abort();
          return;
        }
        const html = body.toString();
        pages.push(request.loadedUrl ?? request.url);
        extracts.set(index, extractFromHtml(html, request.loadedUrl ?? request.url, options.rules));
        const next = options.follow ? nextPageUrl(html, request.loadedUrl ?? request.url, options.follow.next) : null;
        if (next && index + 1 < options.maxPages) {
          if (await mayCrawl(next)) await crawler.addRequests([{ url: next, uniqueKey: `${index + 1}:${next}`, userData: { index: index + 1 } }]);
          else stoppedBy = 'robots';
        }
      },
      failedRequestHandler: async ({ request }, error) => {
        failures.push({ url: request.url, ...reasonOf(error) });
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
  const ordered = [...extracts.entries()].sort(([a], [b]) => a - b).map(([, extract]) => extract);
  return { data: mergeExtracts(ordered, options.rules), pages, failures, stoppedBy };
}
