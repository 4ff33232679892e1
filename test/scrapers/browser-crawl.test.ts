import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlBrowser } from '../../scrapers/browser-crawl.ts';
import { resolverWithOverrides, type AddressPolicy } from '../../outbound/address-guard.ts';
import { serveFixture, type FixtureSite } from '../support/fixture-sites.ts';

const policy: AddressPolicy = { allowed: new Set(['127.0.0.1']), resolve: resolverWithOverrides({}, async () => []) };
let site: FixtureSite;
let forbidden: FixtureSite;
// A STUN server on a refused address: WebRTC's UDP would reach it past page routing and the resolver rules.
let stun: Socket;
let stunPackets = 0;
const stunPort = 43_478;

// The products exist only after client-side JavaScript runs (and fetches them from the same site).
const app = `<!doctype html><html><body><div id="list">loading</div>
<script>
  fetch('/api/products').then((r) => r.json()).then((products) => {
    document.getElementById('list').innerHTML = products.map((p) => '<div class="product"><h2>' + p.name + '</h2><span class="price">' + p.price + '</span></div>').join('');
  });
</script></body></html>`;

/** Gathers ICE candidates against the STUN server, then renders its heading. */
const webrtc = `<!doctype html><html><body><h1>Peer</h1><script>
  const peer = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.2:${stunPort}' }] });
  peer.createDataChannel('probe');
  peer.createOffer().then((offer) => peer.setLocalDescription(offer));
</script></body></html>`;

beforeAll(async () => {
  stun = createSocket('udp4').on('message', () => stunPackets++);
  await new Promise<void>((done) => stun.bind(stunPort, '127.0.0.2', done));
  forbidden = await serveFixture((_req, res) => res.end('secret'), '127.0.0.2');
  site = await serveFixture((_req, res, url) => {
    if (url.pathname === '/app') return res.writeHead(200, { 'content-type': 'text/html' }).end(app);
    if (url.pathname === '/api/products')
      return res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify([
          { name: 'Lamp', price: '1.234,50 €' },
          { name: 'Desk', price: '99' },
        ]),
      );
    if (url.pathname === '/webrtc') return res.writeHead(200, { 'content-type': 'text/html' }).end(webrtc);
    if (url.pathname === '/leaky')
      return res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Leaky</h1><img src="${forbidden.origin}/pixel.png">`);
    res.writeHead(404).end();
  });
});
afterAll(async () => {
  await site.close();
  await forbidden.close();
  stun.close();
});

const base = {
  rules: {
    items: '.product',
    fields: {
      name: { selector: 'h2', all: false, type: 'string' as const },
      price: { selector: '.price', all: false, type: 'number' as const },
    },
  },
  follow: null,
  maxPages: 1,
  timeoutMs: 15_000,
  respectRobots: false,
  policy,
  tls: { verify: true },
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
      chargePage: async ({ url }) => (charged.push(url), true),
    });
    expect(result.failures).toEqual([]);
    expect(result.data).toEqual({
      items: [
        { name: 'Lamp', price: 1234.5 },
        { name: 'Desk', price: 99 },
      ],
    });
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

  it('never lets a page send WebRTC traffic', async () => {
    const result = await crawlBrowser({
      ...base,
      startUrl: `${site.origin}/webrtc`,
      rules: { fields: { title: { selector: 'h1', all: false, type: 'string' } } },
      waitFor: 'h1',
      chargePage: async () => new Promise((paid) => setTimeout(() => paid(true), 1_500)), // time for ICE gathering
    });
    expect(result.data).toEqual({ title: 'Peer' });
    expect(stunPackets).toBe(0);
  }, 60_000);
});
