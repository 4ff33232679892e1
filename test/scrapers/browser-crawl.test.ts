import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlBrowser } from '../../scrapers/browser-crawl.ts';
import { resolverWithOverrides, type AddressPolicy } from '../../scrapers/url-guard.ts';
import { serveFixture, type FixtureSite } from '../support/fixture-sites.ts';

const policy: AddressPolicy = { allowed: new Set(['127.0.0.1']), resolve: resolverWithOverrides({}, async () => []) };
let site: FixtureSite;
let forbidden: FixtureSite;

// The products exist only after client-side JavaScript runs (and fetches them from the same site).
const app = `<!doctype html><html><body><div id="list">loading</div>
<script>
  fetch('/api/products').then((r) => r.json()).then((products) => {
    document.getElementById('list').innerHTML = products.map((p) => '<div class="product"><h2>' + p.name + '</h2><span class="price">' + p.price + '</span></div>').join('');
  });
</script></body></html>`;

beforeAll(async () => {
  forbidden = await serveFixture((_req, res) => res.end('secret'), '127.0.0.2');
  site = await serveFixture((_req, res, url) => {
    if (url.pathname === '/app') return res.writeHead(200, { 'content-type': 'text/html' }).end(app);
    if (url.pathname === '/api/products') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ name: 'Lamp', price: '1.234,50 €' }, { name: 'Desk', price: '99' }]));
    if (url.pathname === '/leaky') return res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Leaky</h1><img src="${forbidden.origin}/pixel.png">`);
    res.writeHead(404).end();
  });
});
afterAll(async () => {
  await site.close();
  await forbidden.close();
});

const base = {
  rules: { items: '.product', fields: { name: { selector: 'h2', all: false, type: 'string' as const }, price: { selector: '.price', all: false, type: 'number' as const } } },
  follow: null,
  maxPages: 1,
  timeoutMs: 15_000,
  respectRobots: false,
  policy,
  maxResponseBytes: 1_000_000,
  chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
};

describe('browser crawl (Chromium)', () => {
  it('extracts content rendered by client-side JavaScript', async () => {
    const charged: string[] = [];
    const result = await crawlBrowser({
      ...base,
      startUrl: `${site.origin}/app`,
      waitFor: '.product',
      chargePage: async (url) => (charged.push(url), true),
    });
    expect(result.failures).toEqual([]);
    expect(result.data).toEqual({ items: [{ name: 'Lamp', price: 1234.5 }, { name: 'Desk', price: 99 }] });
    expect(charged).toEqual([`${site.origin}/app`]);
  }, 60_000);

  it('never lets the page reach a forbidden address', async () => {
    const result = await crawlBrowser({
      ...base,
      startUrl: `${site.origin}/leaky`,
      rules: { fields: { title: { selector: 'h1', all: false, type: 'string' } } },
      chargePage: async () => true,
    });
    expect(result.data).toEqual({ title: 'Leaky' });
    expect(forbidden.hits).toEqual([]);
  }, 60_000);
});
