import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { catalogueSite } from '../support/fixture-sites.ts';
import { catalogueScraper, createScraper, waitForRun } from '../support/scraping.ts';
import { selfSignedCertificate, serveTls, type TlsSite } from '../support/tls-sites.ts';

// shop.test is answered by the outbound resolver itself (127.0.0.1, allowed here); the trusted certificate is the
// one OUTBOUND_CA_FILE names, the other is trusted by nobody.
const trusted = selfSignedCertificate(['shop.test']);
const untrusted = selfSignedCertificate(['shop.test']);
const server = useApiServer(
  {
    OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1',
    OUTBOUND_HOST_OVERRIDES: 'shop.test=127.0.0.1',
    OUTBOUND_CA_FILE: trusted.certFile,
    SCRAPE_PAGE_TIMEOUT_MS: '5000',
  },
  { worker: true },
);
let trustedSite: TlsSite;
let untrustedSite: TlsSite;

beforeAll(async () => {
  trustedSite = await serveTls(catalogueSite({ pages: 2 }), trusted);
  untrustedSite = await serveTls(catalogueSite({ pages: 2 }), untrusted);
});
afterAll(async () => {
  await trustedSite?.close();
  await untrustedSite?.close();
});

const run = async (apiKey: string, scraperId: string, port: number) => {
  const res = await server.request('POST', `/api/scrape/${scraperId}`, {
    key: apiKey,
    body: { url: `https://shop.test:${port}/catalogue?page=1` },
  });
  expect(res.status).toBe(202);
  return waitForRun(server, apiKey, res.body.data.runId);
};

describe('https scrape runs', () => {
  it('scrape a host the outbound resolver answers, verifying its certificate, with both engines', async () => {
    const { apiKey } = await createTestWorkspace();
    for (const engine of ['http', 'browser']) {
      const scraperId = await createScraper(server, apiKey, { ...catalogueScraper, name: engine, engine });
      expect(await run(apiKey, scraperId, trustedSite.port), engine).toMatchObject({ status: 'completed', pages: 2, error: null });
    }
  }, 60_000);

  it('fail on a certificate nobody trusts with tls_error, unless the scraper was created with insecure_tls', async () => {
    const { apiKey } = await createTestWorkspace();
    const strict = await createScraper(server, apiKey);
    expect(await run(apiKey, strict, untrustedSite.port)).toMatchObject({
      status: 'failed',
      pages: 0,
      errorCode: 'tls_error',
      creditsCharged: 0,
    });

    const lenient = await server.request('POST', '/api/scrapers', { key: apiKey, body: { ...catalogueScraper, insecure_tls: true } });
    expect(lenient.body.scraper.insecure_tls).toBe(true);
    expect(await run(apiKey, lenient.body.scraper.id, untrustedSite.port)).toMatchObject({ status: 'completed', pages: 2 });
  });
});
