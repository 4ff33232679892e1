import { gotScraping } from 'got-scraping';
import { createFrontier, pageRequest, type PageRequest } from './crawl-frontier.ts';
import type { CrawlOptions, CrawlResult, PageFailure } from './crawl-types.ts';
import { mergeExtracts, readPage, type PageExtract } from './extract.ts';
import { createRobotsReader } from './robots.ts';
import { readSitemaps } from './sitemap.ts';
import { guardedGotOptions, outboundFailureCode } from '../outbound/guarded-client.ts';

export type { PageRequest } from './crawl-frontier.ts';

export const userAgent = 'LeadOpsBot/1.0 (+https://example.invalid/bot)';

/**
 * Crawlee's settings for one crawl (a crawler has its own): nothing persisted, and the machine's load sampled once a
 * minute instead of every second. A crawl fetches one page at a time, so Crawlee's autoscaling has nothing to
 * decide, and each sample spawns `ps` over every process of the machine (five crawls at once made five a second).
 */
export const crawlConfiguration = { persistStorage: false, purgeOnStart: false, systemInfoIntervalMillis: 60_000 } as const;

/** got options for a crawl's requests: the guarded client's, with the crawler's user agent. */
export const crawlGotOptions = (options: Pick<CrawlOptions, 'policy' | 'tls'>) => ({
  ...guardedGotOptions(options),
  headers: { 'user-agent': userAgent },
});

/** A whole file through the guarded client, within the time and size caps (robots.txt, sitemaps). */
function fileFetcher(options: CrawlOptions, gotOptions: ReturnType<typeof crawlGotOptions>) {
  return async (url: string) => {
    const request = gotScraping({
      url,
      ...gotOptions,
      responseType: 'buffer',
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: options.timeoutMs },
    });
    request.on('downloadProgress', ({ transferred }: { transferred: number }) => {
      if (transferred > options.maxResponseBytes) request.cancel(`larger than ${options.maxResponseBytes} bytes`);
    });
    const response = await request;
    return { status: response.statusCode, body: response.rawBody };
  };
}

/**
 * What both engines share: robots.txt, which pages to fetch (the next link,
 * the links found, or the sitemaps' pages, within the patterns and limits),
 * paying for each page before its data is used, extraction, and the result
 * in page order. An engine only fetches pages and reports them here.
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
  const fetchFile = fileFetcher(options, gotOptions);
  const robots = createRobotsReader(async (url) => {
    const { status, body } = await fetchFile(url);
    return { status, body: body.toString('utf8') };
  }, userAgent);
  const mayCrawl = options.respectRobots ? robots.isAllowed : async () => true;
  const crawl = options.crawl ?? null;
  const frontier = createFrontier(options.startUrl, crawl ?? { include: [], exclude: [] }, options.maxPages);

  /** The pages listed by the site's sitemaps (robots.txt's and /sitemap.xml) that the crawl takes. */
  async function sitemapPages(): Promise<PageRequest[]> {
    const sitemapXml = `${new URL(options.startUrl).origin}/sitemap.xml`;
    const roots = [...(await robots.sitemaps(options.startUrl)), sitemapXml];
    const found = await readSitemaps(roots, fetchFile, frontier.accepts, options.maxPages, options.maxResponseBytes);
    const requests: PageRequest[] = [];
    for (const url of found.pages) {
      const request = await frontier.take(url, 0, mayCrawl);
      if (request) requests.push(request);
    }
    if (!requests.length) failures.push(...found.failures, { url: sitemapXml, reason: 'the sitemaps list no page the crawl may fetch' });
    return requests;
  }

  async function startPages(): Promise<PageRequest[]> {
    if (crawl?.start === 'sitemap') return sitemapPages();
    if (await mayCrawl(options.startUrl)) return [frontier.start(options.startUrl)];
    stoppedBy = 'robots';
    failures.push({ url: options.startUrl, reason: 'disallowed by robots.txt' });
    return [];
  }

  /** The pages a fetched page leads to: its next link (follow), or its links on the site (a links crawl). */
  async function nextPages(page: { index: number; depth: number }, next: string | null, links: string[]): Promise<PageRequest[]> {
    if (crawl) {
      const requests: PageRequest[] = [];
      for (const link of links) {
        const request = await frontier.take(link, page.depth + 1, mayCrawl);
        if (request) requests.push(request);
      }
      return requests;
    }
    if (!next || page.index + 1 >= options.maxPages) return [];
    if (await mayCrawl(next)) return [pageRequest(next, page.index + 1)];
    stoppedBy = 'robots';
    return [];
  }

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

    /** Calls `stop` when the crawl is cancelled (the engine aborts its crawler). */
    onCancel(stop: () => unknown) {
      options.signal?.addEventListener('abort', () => void stop(), { once: true });
    },

    /** A page fetched: extract it, start paying for it, and queue the pages it leads to. False when the crawl must stop. */
    async fetched(
      request: { url: string; userData: Record<string, unknown> },
      pageUrl: string,
      html: string,
      enqueue: (next: PageRequest[]) => Promise<unknown>,
    ) {
      const page = { index: request.userData.index as number, depth: (request.userData.depth as number | undefined) ?? 0 };
      if (options.signal?.aborted || !(await paying)) return false;
      const wantsLinks = crawl?.start === 'links' && page.depth < crawl.max_depth;
      const { extract, next, links } = readPage(html, pageUrl, options.rules, { next: options.follow?.next, links: wantsLinks });
      paying = options.chargePage({ url: request.url, index: page.index }).then(
        (paid) => {
          if (paid) paidPages.set(page.index, { url: pageUrl, extract });
          else stoppedBy = 'credits';
          return paid;
        },
        (error: unknown) => {
          paymentError = error;
          return false;
        },
      );
      const requests = await nextPages(page, next, links);
      if (requests.length) await enqueue(requests);
      return true;
    },

    /** Runs the engine from the start pages (the run's URL, or the sitemaps' pages) and returns the result. */
    async run(crawlPages: (starts: PageRequest[]) => Promise<unknown>): Promise<CrawlResult> {
      const starts = await startPages();
      if (starts.length && !options.signal?.aborted) await crawlPages(starts);
      await paying; // the last page's payment
      if (paymentError) throw paymentError;
      if (options.signal?.aborted) stoppedBy = 'cancelled';
      const ordered = [...paidPages.entries()].sort(([a], [b]) => a - b).map(([, page]) => page);
      return {
        data: mergeExtracts(
          ordered.map((page) => page.extract),
          options.rules,
          crawl !== null,
        ),
        pages: ordered.map((page) => page.url),
        failures: [...failures],
        stoppedBy,
      };
    },
  };
}
