import { expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { createScraper, scrapeEnv } from '../support/scraping.ts';
import { fetchContract } from './openapi-contract.ts';
import { useTypedClient } from './typed-client-usage.ts';
import { useTypedGraphQL } from './typed-graphql-usage.ts';

// No worker: the run stays queued, so the script sees the 202 answers.
const server = useApiServer(scrapeEnv);

it('runs the openapi-fetch script against the server, each response held to the document', async () => {
  const { apiKey } = await createTestWorkspace();
  const scraperId = await createScraper(server, apiKey);
  const contract = await fetchContract(server.baseUrl);
  const checkedFetch = async (request: Request) => {
    const response = await fetch(request);
    const text = await response.clone().text();
    const type = response.headers.get('content-type') ?? '';
    const violation = contract.check(
      request.method,
      request.url,
      response.status,
      type.includes('json') && text ? JSON.parse(text) : text,
      type,
      response.headers,
    );
    if (violation) throw new Error(`OpenAPI contract: ${violation}`);
    return response;
  };
  const result = await useTypedClient({
    baseUrl: server.baseUrl,
    apiKey,
    scraperId,
    startUrl: 'http://127.0.0.1:9/catalogue',
    fetch: checkedFetch,
  });
  expect(result).toMatchObject({
    created: 1,
    replayed: 'true',
    requestId: expect.any(String),
    rateLimit: { limit: expect.any(Number), remaining: expect.any(Number) },
    emails: ['ada@acme.test'],
    total: 1,
    runId: expect.any(String),
    status: 'queued',
    missingError: { success: false, errorType: 'not_found', code: 'not_found' },
  });
  expect(result.pending).toEqual({ runId: result.runId, status: 'queued' });
});

it('runs the GraphQL client against the server: dates as DateTime, statuses as enums, the scrape run id from the union', async () => {
  const { apiKey } = await createTestWorkspace();
  const scraperId = await createScraper(server, apiKey);
  const result = await useTypedGraphQL({ baseUrl: server.baseUrl, apiKey, scraperId, startUrl: 'http://127.0.0.1:9/catalogue' });
  expect(result.leads).toEqual([
    { email: 'grace@hopper.test', stored: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/), verdict: null, status: 'new' },
  ]);
  expect(result).toMatchObject({
    start: 'a new run',
    runFinished: false,
    runCreated: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    scrape: { kind: 'ScrapeAccepted', runId: expect.any(String) },
  });
});
