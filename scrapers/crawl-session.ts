import { gotScraping } from 'got-scraping';
import type { CrawlOptions, CrawlResult, PageFailure } from './crawl-types.ts';
import { extractFromHtml, mergeExtracts, nextPageUrl, type PageExtract } from './extract.ts';
import { createRobotsCheck } from './robots.ts';
import { guardedGotOptions, outboundFailureCode } from '../outbound/guarded-client.ts';

export const userAgent = 'LeadOpsBot/1.0 (+https://example.invalid/bot)';

/** got options for a crawl's requests: the guarded client's, with the crawler's user agent. */
export const crawlGotOptions = (options: Pick<CrawlOptions, 'policy' | 'tls'>) => ({
  ...guardedGotOptions(options),
  headers: { 'user-agent': userAgent },
});

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
 *
 * A page is paid for while the next one is fetched: its data is kept once
 * the payment succeeds, and a page whose predecessor could not be paid for
 * is dropped unpaid, so the crawl ends at most one free fetch later.
 */
export function createCrawlSession(options: CrawlOptions) {
  const paidPages = new Map<number, { url: string; extract: PageExtract }>();
  let paying: Promise<boolean> = Promise.resolve(true);
  // A payment that failed (not for want of credits: the store, say) fails the crawl once it has stopped.
  let paymentError: unknown;
  const failures: PageFailure[] = [];
  let stoppedBy: CrawlResult['stoppedBy'];
  const gotOptions = crawlGotOptions(options);
  const mayCrawl = options.respectRobots
    ? createRobotsCheck(async (url) => {
        const response = await gotScraping({
          url,
          ...gotOptions,
          throwHttpErrors: false,
          followRedirect: false,
          timeout: { request: options.timeoutMs },
        });
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

    /** A page that could not be fetched; `cause` is what failed its navigation when the engine saw it (the browser's own error hides it). */
    failedWith(url: string, error: unknown, cause?: unknown) {
      const message = error instanceof Error ? error.message : String(error);
      failures.push({ url, reason: message.split('\n')[0]!, code: outboundFailureCode(cause ?? error) });
    },

    /** A page fetched: extract it, start paying for it, and queue the next page. False when the page before could not be paid for (stop the crawl). */
    async fetched(
      request: { url: string; userData: Record<string, unknown> },
      pageUrl: string,
      html: string,
      enqueue: (next: PageRequest) => Promise<unknown>,
    ) {
      const index = request.userData.index as number;
      if (!(await paying)) return false;
      const extract = extractFromHtml(html, pageUrl, options.rules);
      paying = options.chargePage({ url: request.url, index }).then(
        (paid) => {
          if (paid) paidPages.set(index, { url: pageUrl, extract });
          else stoppedBy = 'credits';
          return paid;
        },
        (error: unknown) => {
          paymentError = error;
          return false;
        },
      );
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
      await paying; // the last page's payment
      if (paymentError) throw paymentError;
      const ordered = [...paidPages.entries()].sort(([a], [b]) => a - b).map(([, page]) => page);
      return {
        data: mergeExtracts(
          ordered.map((page) => page.extract),
          options.rules,
        ),
        pages: ordered.map((page) => page.url),
        failures,
        stoppedBy,
      };
    },
  };
}
