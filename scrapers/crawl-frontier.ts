import picomatch from 'picomatch';
import type { CrawlRules } from '../schema/scrapers.ts';

export interface PageRequest {
  url: string;
  userData: { index: number; depth: number };
  uniqueKey: string;
}

/** Page n of a crawl (n counts from 0 in the order pages are queued: the order they are fetched and paid for). */
export const pageRequest = (url: string, index: number, depth = 0): PageRequest => ({
  url,
  uniqueKey: `${index}:${url}`,
  userData: { index, depth },
});

const withoutHash = (url: URL) => url.href.slice(0, url.href.length - url.hash.length);

/**
 * Which pages a crawl queues: http(s) pages on the start's host whose path
 * passes the patterns (picomatch globs on the URL path), each once, up to
 * `maxPages`, numbered in the order they are taken.
 */
export function createFrontier(startUrl: string, patterns: Pick<CrawlRules, 'include' | 'exclude'>, maxPages: number) {
  const included = patterns.include.length ? picomatch(patterns.include, { dot: true }) : () => true;
  const excluded = patterns.exclude.length ? picomatch(patterns.exclude, { dot: true }) : () => false;
  const host = new URL(startUrl).host;
  const seen = new Set<string>();
  let taken = 0;

  const candidate = (href: string): URL | null => {
    try {
      const url = new URL(href);
      const fits = /^https?:$/.test(url.protocol) && url.host === host && included(url.pathname) && !excluded(url.pathname);
      return fits && !seen.has(withoutHash(url)) ? url : null;
    } catch {
      return null;
    }
  };

  return {
    /** Whether a URL would be taken (host, patterns, not seen yet), without taking it. */
    accepts: (href: string) => candidate(href) !== null,
    /** The start page: always page 0, whatever the patterns (it is where the links come from). */
    start(href: string): PageRequest {
      seen.add(withoutHash(new URL(href)));
      return pageRequest(href, taken++, 0);
    },
    /** The request for `href` when the crawl takes it (and robots.txt allows it), else null. */
    async take(href: string, depth: number, mayCrawl: (url: string) => Promise<boolean>): Promise<PageRequest | null> {
      if (taken >= maxPages) return null;
      const url = candidate(href);
      if (!url) return null;
      const key = withoutHash(url);
      seen.add(key);
      if (!(await mayCrawl(key)) || taken >= maxPages) return null;
      return pageRequest(key, taken++, depth);
    },
  };
}
