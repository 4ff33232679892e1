import type { CrawlRules, ExtractRules, FollowRules } from '../schema/scrapers.ts';
import type { PageExtract } from './extract.ts';
import type { AddressPolicy } from '../outbound/address-guard.ts';
import type { TlsTrust } from '../outbound/guarded-client.ts';

export interface CrawlOptions {
  startUrl: string;
  rules: ExtractRules;
  follow: FollowRules | null;
  /** A crawl (links or sitemap) instead of following a next link; its `max_pages` is already in `maxPages`. */
  crawl?: CrawlRules | null;
  /** Aborted: the crawl stops (a page in flight may finish; it is not paid for) and answers what it has. */
  signal?: AbortSignal;
  /** Pages to fetch at most, the first included. */
  maxPages: number;
  /** Budget for each page: connecting, downloading and (browser) rendering. */
  timeoutMs: number;
  respectRobots: boolean;
  policy: AddressPolicy;
  /** Certificate checking for https pages. */
  tls: TlsTrust;
  maxResponseBytes: number;
  /** Browser engine: wait for this selector before extracting. */
  waitFor?: string;
  /**
   * Called once for each page fetched successfully, before its data is used.
   * Answering false means the page cannot be paid for: it is dropped and the crawl stops.
   */
  chargePage(page: { url: string; index: number }): Promise<boolean>;
}

export interface PageFailure {
  url: string;
  reason: string;
  /** url_not_allowed when the guard refused the address, tls_error when the certificate could not be trusted. */
  code?: string;
}

export interface CrawlResult {
  data: PageExtract;
  /** Pages fetched and paid for, in order. */
  pages: string[];
  failures: PageFailure[];
  /** Why the crawl ended before following every page. */
  stoppedBy?: 'credits' | 'robots' | 'cancelled';
}
