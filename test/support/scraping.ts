import { expect } from 'vitest';
import type { TestServer } from './api-server.ts';

/** Loopback settings for scraping tests: only 127.0.0.1 is reachable; fixture.test stands for a forbidden name. */
export const scrapeEnv = {
  SCRAPE_ALLOWED_ADDRESSES: '127.0.0.1',
  SCRAPE_HOST_OVERRIDES: 'fixture.test=127.0.0.3',
  SCRAPE_PAGE_TIMEOUT_MS: '5000',
};

/** The catalogue's extraction rules as the crawler factories take them (defaults filled in). */
export const catalogueRules = {
  items: '.product',
  fields: {
    title: { selector: 'h2', all: false, type: 'string' as const },
    price: { selector: '.price', all: false, type: 'number' as const },
    link: { selector: 'a', attribute: 'href', all: false, type: 'url' as const },
  },
};

export const catalogueScraper = {
  name: 'Catalogue',
  extract: {
    items: '.product',
    fields: {
      title: { selector: 'h2' },
      price: { selector: '.price', type: 'number' },
      link: { selector: 'a', attribute: 'href', type: 'url' },
    },
  },
  follow: { next: 'a.next', max_pages: 10 },
};

export async function createScraper(server: TestServer, key: string, body: Record<string, unknown> = catalogueScraper): Promise<string> {
  const res = await server.request('POST', '/api/scrapers', { key, body });
  expect(res.status).toBe(201);
  return res.body.scraper.id;
}

/** Polls the run until it leaves queued/running. */
export async function waitForRun(server: TestServer, key: string, runId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await server.request('GET', `/api/scrape/runs/${runId}`, { key });
    if (!['queued', 'running'].includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
