import { gotScraping } from 'got-scraping';
import { outboundFailureCode } from '../outbound/guarded-client.ts';
import type { CrawlOptions } from './crawl-types.ts';
import { crawlGotOptions, userAgent } from './crawl-session.ts';
import { createRobotsCheck } from './robots.ts';

export type PageFetch =
  { kind: 'page'; url: string; status: number; html: string } | { kind: 'failed'; url: string; reason: string; code?: string };

/**
 * Fetches single pages the way the crawlers do: through the guarded client
 * (address guard on every connection and redirect, certificate checks),
 * honouring robots.txt (read once per site), within the time and size caps.
 * Writes nothing anywhere.
 */
export function createPageFetcher(options: Pick<CrawlOptions, 'policy' | 'tls' | 'timeoutMs' | 'maxResponseBytes'>) {
  const gotOptions = crawlGotOptions(options);
  const get = (url: string) =>
    gotScraping({ url, ...gotOptions, throwHttpErrors: false, retry: { limit: 0 }, timeout: { request: options.timeoutMs } });
  const mayFetch = createRobotsCheck(async (url) => {
    const response = await get(url);
    return { status: response.statusCode, body: String(response.body) };
  }, userAgent);

  return async (url: string): Promise<PageFetch> => {
    if (!/^https?:\/\//i.test(url)) return { kind: 'failed', url, reason: 'only http and https pages can be fetched' };
    try {
      if (!(await mayFetch(url))) return { kind: 'failed', url, reason: 'disallowed by robots.txt', code: 'robots' };
      const request = get(url);
      request.on('downloadProgress', ({ transferred }: { transferred: number }) => {
        if (transferred > options.maxResponseBytes) request.cancel(`response larger than ${options.maxResponseBytes} bytes`);
      });
      const response = await request;
      if (response.statusCode >= 400) return { kind: 'failed', url, reason: `HTTP ${response.statusCode}` };
      const type = String(response.headers['content-type'] ?? 'text/html');
      if (!/html|xml|text\/plain/i.test(type)) return { kind: 'failed', url, reason: `not a web page (${type.split(';')[0]})` };
      return { kind: 'page', url: response.url, status: response.statusCode, html: String(response.body) };
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      return { kind: 'failed', url, reason, code: outboundFailureCode(error) };
    }
  };
}
