import { CheerioCrawler, Configuration, log, LogLevel } from '@crawlee/cheerio';
import { crawlConfiguration, createCrawlSession } from './crawl-session.ts';
import type { CrawlOptions, CrawlResult } from './crawl-types.ts';

log.setLevel(LogLevel.OFF);

/**
 * Crawls with Crawlee's CheerioCrawler (plain HTTP, no browser): the start
 * page, then up to `maxPages - 1` next pages one after another, extracting
 * each. Nothing is written anywhere; the caller gets the data and the
 * pages it paid for.
 */
export async function crawlHttp(options: CrawlOptions): Promise<CrawlResult> {
  const session = createCrawlSession(options);
  const tooLarge = () => new Error(`response larger than ${options.maxResponseBytes} bytes`);
  const crawler = new CheerioCrawler(
    {
      ...session.crawlerLimits,
      // Crawlee's own switch for certificate checks, applied over the request's options: it must agree with them.
      ignoreSslErrors: !options.tls.verify,
      preNavigationHooks: [
        async (_context, requestOptions) => {
          Object.assign(requestOptions, session.gotOptions);
        },
      ],
      postNavigationHooks: [
        async ({ response }) => {
          if (Number(response?.headers['content-length'] ?? 0) > options.maxResponseBytes) throw tooLarge();
          let received = 0;
          response?.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > options.maxResponseBytes) response.destroy(tooLarge());
          });
        },
      ],
      requestHandler: async ({ request, response, body }) => {
        if ((response.statusCode ?? 0) >= 400) return session.failed(request.url, `HTTP ${response.statusCode}`);
        const paid = await session.fetched(request, request.loadedUrl ?? request.url, body.toString(), (next) => crawler.addRequests(next));
        if (!paid) await crawler.autoscaledPool?.abort();
      },
      failedRequestHandler: async ({ request }, error) => session.failedWith(request.url, error),
    },
    new Configuration(crawlConfiguration),
  );
  session.onCancel(() => crawler.autoscaledPool?.abort());
  return session.run((starts) => crawler.run(starts));
}
