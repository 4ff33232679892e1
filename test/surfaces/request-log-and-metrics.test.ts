import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { setLogLevel, setLogSink } from '../../src/logger.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useCatalogueAndForbiddenSites } from '../support/fixture-sites.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

const server = useApiServer(scrapeEnv, { worker: true });
const sites = useCatalogueAndForbiddenSites();

afterEach(() => {
  setLogSink(null);
  setLogLevel('silent');
});

/** Log lines written while `work` runs, at `level`. */
async function linesDuring(level: 'info' | 'debug', work: () => Promise<unknown>) {
  const lines: Array<Record<string, unknown>> = [];
  setLogLevel(level);
  setLogSink((line) => lines.push(JSON.parse(line)));
  await work();
  await new Promise((r) => setTimeout(r, 50)); // the line is written once the response has gone
  setLogSink(null);
  setLogLevel('silent');
  return lines;
}

/** The value of one series in Prometheus text, or undefined. */
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('request logs', () => {
  it('write one line per request at info: method, route as declared, status, duration, request id, key id, never the key', async () => {
    const { apiKey } = await createTestWorkspace();
    const keyId = (await server.request('GET', '/api/user', { key: apiKey })).body.data.apiKey.id;
    const lines = await linesDuring('info', () =>
      server.request('GET', '/api/scrapers/5d0c1a7e-8f2b-4c3d-9e4f-1a2b3c4d5e6f', {
        key: apiKey,
        headers: { 'x-request-id': 'log-test-1' },
      }),
    );
    const requestLines = lines.filter((l) => l.message === 'request');
    expect(requestLines).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        message: 'request',
        requestId: 'log-test-1',
        method: 'GET',
        route: '/api/scrapers/{id}',
        status: 404,
        durationMs: expect.any(Number),
        keyId,
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain(apiKey);

    const debug = await linesDuring('debug', () => server.request('GET', '/healthz', { headers: { 'user-agent': 'probe/1.0' } }));
    expect(debug.find((l) => l.message === 'request detail')).toMatchObject({ path: '/healthz', userAgent: 'probe/1.0' });
    expect(debug.find((l) => l.message === 'request')).toMatchObject({ route: '/healthz', status: 200 });
  });
});

describe('request logs of requests that never got their answer', () => {
  it('log a request its client abandoned with status 499', async () => {
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey, { name: 'Slow', extract: { fields: { h: { selector: 'h1' } } } });
    const lines = await linesDuring('info', async () => {
      const abandon = new AbortController();
      setTimeout(() => abandon.abort(), 300);
      const waiting = fetch(`${server.baseUrl}/api/scrape/${scraperId}`, {
        method: 'POST',
        signal: abandon.signal,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${sites.site.origin}/slow?ms=1500`, options: { wait: true } }),
      });
      await expect(waiting).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 100));
    });
    expect(lines.find((l) => l.message === 'request' && l.route === '/api/scrape/{scraperId}')).toMatchObject({
      method: 'POST',
      status: 499,
    });
  });

  it('log a request refused before it could be parsed', async () => {
    const lines = await linesDuring('info', async () => {
      const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
      socket.write(`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      await new Promise((done) => socket.once('data', done));
      socket.destroy();
    });
    expect(lines.find((l) => l.message === 'request')).toMatchObject({ route: 'unmatched', status: 414, requestId: expect.any(String) });
  });
});

describe('GET /metrics', () => {
  it('serves Prometheus text without a key: requests, latency, jobs, queue depth, pages scraped, credits spent', async () => {
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    const metrics = async () => (await fetch(`${server.baseUrl}/metrics`)).text();
    const accepted = 'http_requests_total{route="/api/scrape/{scraperId}",method="POST",status="202"}';
    const acceptedBefore = sample(await metrics(), accepted) ?? 0;
    const started = await server.request('POST', `/api/scrape/${scraperId}`, {
      key: apiKey,
      body: { url: `${sites.site.origin}/catalogue?page=1` },
    });
    expect((await waitForRun(server, apiKey, started.body.data.runId)).pages).toBe(4);
    await new Promise((r) => setTimeout(r, 200)); // the job's own bookkeeping after the run ended

    const res = await fetch(`${server.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(sample(text, accepted)).toBe(acceptedBefore + 1);
    expect(sample(text, 'http_request_duration_seconds_count{route="/api/scrape/{scraperId}",method="POST"}')).toBeGreaterThanOrEqual(
      acceptedBefore + 1,
    );
    expect(sample(text, 'job_runs_total{job="scrape.run",outcome="completed"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'scrape_pages_total{engine="http"}')).toBeGreaterThanOrEqual(4);
    expect(sample(text, 'credits_spent_total{kind="crawl"}')).toBeGreaterThanOrEqual(4);
    expect(text).toContain('# TYPE job_queue_depth gauge');
    expect(text).toContain('process_cpu_seconds_total');
  });
});
