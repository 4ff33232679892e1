import { gotScraping } from 'got-scraping';
import type { CrawlOptions, CrawlResult, PageFailure } from './crawl-types.ts';
import { extractFromHtml, mergeExtracts, nextPageUrl, type PageExtract } from './extract.ts';
import { createRobotsCheck } from './robots.ts';
import { assertUrlAllowed, guardedLookup, UrlNotAllowedError } from './url-guard.ts';

export const userAgent = 'LeadOpsBot/1.0 (+https://example.invalid/bot)';

/** got options that route every connection, redirects included, through the address guard. */
export function guardedGotOptions(options: Pick<CrawlOptions, 'policy'>) {
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

export interface PageRequest {
  url: string;
  userData: Record<string, unknown>;
  uniqueKey: string;
}

const pageRequest = (url: string, index: number): PageRequest => ({ url, uniqueKey: `${index}:${url}`, userData: { index } });

/**
 * What both engines share: robots.txt, paying for each page before its data
 * is used, extraction, following the next link, and the result in page
 * order. An engine only fetches pages and reports them here.
 */
export function createCrawlSession(options: CrawlOptions) {
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

  return {
    gotOptions,
    crawlerLimits: {
      maxConcurrency: 1,
      maxRequestRetries: 0,
      maxRequestsPerCrawl: options.maxPages,
      navigationTimeoutSecs: Math.ceil(options.timeoutMs / 1000),
      requestHandlerTimeoutSecs: Math.ceil(options.timeoutMs / 1000) + 5,
      useSessionPool: false,
      persistCookiesPerSession: false,
    },

    /** A page answered with an error status: recorded, not charged. */
    failed(url: string, reason: string, code?: string) {
      failures.push({ url, reason, code });
    },

    failedWith(url: string, error: unknown) {
      const cause = error as { code?: string; message?: string; cause?: { code?: string } };
      const refused = error instanceof UrlNotAllowedError || cause.code === 'url_not_allowed' || cause.cause?.code === 'url_not_allowed' || /scrapes may not reach|ERR_BLOCKED_BY_CLIENT/.test(String(cause.message));
      failures.push({ url, reason: (cause.message ?? String(error)).split('\n')[0]!, code: refused ? 'url_not_allowed' : undefined });
    },

    /** A page fetched: pay for it, extract it, and queue the next page. False when it could not be paid for (stop the crawl). */
    async fetched(request: { url: string; userData: Record<string, unknown> }, pageUrl: string, html: string, enqueue: (next: PageRequest) => Promise<unknown>) {
      const index = request.userData.index as number;
      if (!(await options.chargePage(request.url))) {
        stoppedBy = 'credits';
        return false;
      }
      pages.push(pageUrl);
      extracts.set(index, extractFromHtml(html, pageUrl, options.rules));
      const next = options.follow ? nextPageUrl(html, pageUrl, options.follow.next) : null;
      if (next && index + 1 < options.maxPages) {
        if (await mayCrawl(next)) await enqueue(pageRequest(next, index + 1));
        else stoppedBy = 'robots';
      }
      return true;
    },

    /** Runs the engine from the start page (unless robots.txt forbids it) and returns the result. */
    async run(crawl: (start: PageRequest) => Promise<unknown>): Promise<CrawlResult> {
      if (await mayCrawl(options.startUrl)) {
        await crawl(pageRequest(options.startUrl, 0));
      } else {
        stoppedBy = 'robots';
        failures.push({ url: options.startUrl, reason: 'disallowed by robots.txt' });
      }
      const ordered = [...extracts.entries()].sort(([a], [b]) => a - b).map(([, extract]) => extract);
      return { data: mergeExtracts(ordered, options.rules), pages, failures, stoppedBy };
    },
  };
}
