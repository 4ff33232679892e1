import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface FixtureSite {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  /** Paths requested so far, in order. */
  hits: string[];
  /** The most requests it was answering at the same time. */
  maxInFlight(): number;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => unknown;

/** Serves `handler` on a loopback address (127.0.0.1 unless another 127.x is given), recording each request. */
export async function serveFixture(handler: Handler, host = '127.0.0.1', port = 0): Promise<FixtureSite> {
  const hits: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${host}`);
    hits.push(url.pathname + url.search);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    res.once('close', () => inFlight--);
    void Promise.resolve(handler(req, res, url)).catch(() => res.destroy());
  });
  await new Promise<void>((done) => server.listen(port, host, done));
  const bound = (server.address() as AddressInfo).port;
  return {
    origin: `http://${host}:${bound}`,
    port: bound,
    hits,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

const html = (res: ServerResponse, body: string, status = 200) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><body>${body}</body></html>`);
};

/**
 * A paginated product catalogue: `/catalogue?page=N` lists `perPage`
 * products and links the next page until `pages`. Also: `/robots.txt`
 * disallowing `/private`, `/private/catalogue`, `/missing` (404), `/broken`
 * (500), `/slow` (answers after `?ms=`), `/redirect?to=<url>`, and `/huge`.
 * `pageDelayMs` slows every catalogue page.
 */
export function catalogueSite(options: { pages: number; perPage?: number; pageDelayMs?: number }) {
  const perPage = options.perPage ?? 3;
  return async (_req: IncomingMessage, res: ServerResponse, url: URL) => {
    const page = Number(url.searchParams.get('page') ?? 1);
    if (options.pageDelayMs && url.pathname === '/catalogue') await new Promise((r) => setTimeout(r, options.pageDelayMs));
    switch (url.pathname) {
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('User-agent: *\nDisallow: /private\n');
      case '/catalogue':
      case '/private/catalogue': {
        const products = Array.from({ length: perPage }, (_, i) => {
          const n = (page - 1) * perPage + i + 1;
          return `<div class="product"><h2>Product ${n}</h2><span class="price">$1,${String(n).padStart(3, '0')}.50</span><a href="/p/${n}">details</a></div>`;
        }).join('');
        const next = page < options.pages ? `<a class="next" href="${url.pathname}?page=${page + 1}">next</a>` : '';
        return html(res, `<h1>Catalogue page ${page}</h1>${products}${next}`);
      }
      case '/missing':
        return html(res, 'not here', 404);
      case '/broken':
        return html(res, 'oops', 500);
      case '/slow':
        await new Promise((r) => setTimeout(r, Number(url.searchParams.get('ms') ?? 2000)));
        return html(res, `<h1>Slow page</h1>`);
      case '/linking':
        return html(
          res,
          `<div class="product"><h2>Linking</h2></div><a class="next" href="${url.searchParams.get('next') ?? '/'}">next</a>`,
        );
      case '/redirect':
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        return res.end();
      case '/huge':
        return html(res, `<h1>Huge</h1><p>${'x'.repeat(3_000_000)}</p>`);
      default:
        return html(res, 'unknown', 404);
    }
  };
}

/**
 * For one test file: a 4-page catalogue on 127.0.0.1 (the only exempt
 * address) and a "forbidden" site on 127.0.0.2 that records any request
 * that should never have been made.
 */
export function useCatalogueAndForbiddenSites() {
  const sites = {} as { site: FixtureSite; forbidden: FixtureSite };
  beforeAll(async () => {
    sites.site = await serveFixture(catalogueSite({ pages: 4 }));
    sites.forbidden = await serveFixture((_req, res) => res.end('secret'), '127.0.0.2');
  });
  afterAll(async () => {
    await sites.site?.close();
    await sites.forbidden?.close();
  });
  return sites;
}

const xml = (res: ServerResponse, body: string | Buffer, type = 'application/xml') => {
  res.writeHead(200, { 'content-type': type });
  res.end(body);
};
const urlset = (origin: string, paths: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
    .map((path) => `<url><loc>${origin}${path}</loc></url>`)
    .join('')}</urlset>`;

/**
 * A site to crawl: `/` links to the first blog post, the shop, `/about`
 * and a page on another host; blog post N (1..`posts`) links to post N+1
 * and to `/blog/private/N`, which robots.txt disallows. robots.txt names a
 * sitemap index (`/sitemaps/index.xml`) listing a gzipped sitemap of the
 * posts (the private ones too) and a plain one of the `shop` items;
 * `/sitemap.xml` lists `/about`. `pageDelayMs` slows every page.
 */
export function crawlSite(options: { posts: number; shop?: number; pageDelayMs?: number }) {
  const shop = options.shop ?? 3;
  const posts = Array.from({ length: options.posts }, (_, i) => i + 1);
  return async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const origin = `http://${req.headers.host}`;
    if (options.pageDelayMs && !url.pathname.includes('.')) await new Promise((r) => setTimeout(r, options.pageDelayMs));
    const post = /^\/blog\/post-(\d+)$/.exec(url.pathname);
    if (post) {
      const n = Number(post[1]);
      if (n > options.posts) return html(res, 'unknown', 404);
      const next = n < options.posts ? `<a href="/blog/post-${n + 1}#top">next</a>` : '';
      return html(res, `<h1>Post ${n}</h1><p class="body">Text of post ${n}</p>${next}<a href="/blog/private/${n}">draft</a>`);
    }
    if (/^\/blog\/private\//.test(url.pathname)) return html(res, '<h1>Private</h1>');
    if (/^\/shop\/item-\d+$/.test(url.pathname)) return html(res, `<h1>Item ${url.pathname.slice(11)}</h1>`);
    switch (url.pathname) {
      case '/':
        return html(
          res,
          '<h1>Home</h1><a href="/blog/post-1">blog</a><a href="/shop/item-1">shop</a><a href="about">about</a><a href="http://127.0.0.2/elsewhere">away</a><a href="mailto:x@y.test">mail</a>',
        );
      case '/about':
        return html(res, '<h1>About</h1>');
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`User-agent: *\nDisallow: /blog/private\nSitemap: ${origin}/sitemaps/index.xml\n`);
      case '/sitemaps/index.xml':
        return xml(
          res,
          `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemaps/blog.xml.gz</loc></sitemap><sitemap><loc>${origin}/sitemaps/shop.xml</loc></sitemap></sitemapindex>`,
        );
      case '/sitemaps/blog.xml.gz':
        return xml(
          res,
          gzipSync(
            urlset(
              origin,
              posts.flatMap((n) => [`/blog/post-${n}`, `/blog/private/${n}`]),
            ),
          ),
          'application/gzip',
        );
      case '/sitemaps/shop.xml':
        return xml(
          res,
          urlset(
            origin,
            Array.from({ length: shop }, (_, i) => `/shop/item-${i + 1}`),
          ),
        );
      case '/sitemap.xml':
        return xml(res, urlset(origin, ['/about']));
      default:
        return html(res, 'unknown', 404);
    }
  };
}
