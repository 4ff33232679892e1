import { gunzipSync } from 'node:zlib';
import { load } from 'cheerio';
import type { PageFailure } from './crawl-types.ts';

/** What fetching one sitemap file gives: its status and raw bytes (gzip or not). */
export type FetchBytes = (url: string) => Promise<{ status: number; body: Buffer }>;

/** Sitemap files read at most per run, indexes included: a guard against index loops and very large sites. */
const maxSitemapFiles = 200;

const isGzip = (body: Buffer) => body.length > 2 && body[0] === 0x1f && body[1] === 0x8b;

/** The `<loc>`s of a sitemap: pages of a `<urlset>`, or further sitemaps of a `<sitemapindex>`. */
function parseSitemap(xml: string): { pages: string[]; sitemaps: string[] } {
  const $ = load(xml, { xml: true });
  const locs = (selector: string) =>
    $(selector)
      .toArray()
      .map((element) => $(element).text().trim())
      .filter(Boolean);
  return { pages: locs('urlset > url > loc'), sitemaps: locs('sitemapindex > sitemap > loc') };
}

/**
 * The pages the given sitemaps list, in their order, read breadth first
 * through indexes (gzip or plain XML), keeping those `accept` takes, until
 * `limit` are found. Files that cannot be read are reported, not thrown.
 * Writes nothing anywhere.
 */
export async function readSitemaps(
  roots: string[],
  fetchBytes: FetchBytes,
  accept: (url: string) => boolean,
  limit: number,
  maxBytes: number,
): Promise<{ pages: string[]; failures: PageFailure[] }> {
  const queue = [...new Set(roots)];
  const seenFiles = new Set(queue);
  const seenPages = new Set<string>();
  const pages: string[] = [];
  const failures: PageFailure[] = [];
  for (let read = 0; queue.length && pages.length < limit && read < maxSitemapFiles; read++) {
    const url = queue.shift()!;
    try {
      const { status, body } = await fetchBytes(url);
      if (status >= 400) {
        failures.push({ url, reason: `HTTP ${status}` });
        continue;
      }
      const xml = (isGzip(body) ? gunzipSync(body, { maxOutputLength: maxBytes }) : body).toString('utf8');
      const found = parseSitemap(xml);
      for (const next of found.sitemaps.filter((next) => !seenFiles.has(next))) {
        seenFiles.add(next);
        queue.push(next);
      }
      for (const page of found.pages) {
        if (pages.length >= limit) break;
        if (seenPages.has(page) || !accept(page)) continue;
        seenPages.add(page);
        pages.push(page);
      }
    } catch (error) {
      failures.push({ url, reason: `sitemap unreadable: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` });
    }
  }
  return { pages, failures };
}
