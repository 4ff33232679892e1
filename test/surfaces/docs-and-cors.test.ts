import { describe, expect, it } from 'vitest';
import { createTestWorkspace, requestWithHost, useApiServer } from '../support/api-server.ts';
import { useBrowser } from '../support/browser.ts';

const appOrigin = 'http://app.example';
const server = useApiServer({ CORS_ORIGINS: appOrigin });
const browserHolder = useBrowser();

const preflight = (path: string, origin: string) =>
  fetch(`${server.baseUrl}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
  });

describe('cross-origin browser clients', () => {
  it('answer preflights and requests from the origins in CORS_ORIGINS, on every surface', async () => {
    const { apiKey } = await createTestWorkspace();
    for (const path of ['/api/user', '/graphql', '/trpc/account.currentUser']) {
      const res = await preflight(path, appOrigin);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe(appOrigin);
      expect(res.headers.get('access-control-allow-headers'), path).toContain('Authorization');
      expect(res.headers.get('access-control-allow-methods'), path).toContain('PATCH');
    }
    const res = await fetch(`${server.baseUrl}/api/user`, { headers: { origin: appOrigin, authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(appOrigin);
    expect(res.headers.get('access-control-expose-headers')).toContain('RateLimit-Remaining');
  });

  it('give other origins no CORS headers', async () => {
    const res = await preflight('/api/user', 'http://elsewhere.example');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const graphql = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { origin: 'http://elsewhere.example', 'content-type': 'application/json' },
      body: '{"query":"{ __typename }"}',
    });
    expect(graphql.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the /docs reference', () => {
  it('names its server absolutely, at the address it was opened at (generated clients take it as their base URL)', async () => {
    const document = (await server.request('GET', '/openapi.json')).body;
    expect(document.servers).toEqual([{ url: server.baseUrl }]);
    const viaLocalhost = await requestWithHost(server.baseUrl, '/openapi.json', `localhost:${new URL(server.baseUrl).port}`);
    expect(JSON.parse(viaLocalhost.body).servers).toEqual([{ url: `http://localhost:${new URL(server.baseUrl).port}` }]);
  });

  it('runs "Try it out" on GET /api/user with a key, opened from 127.0.0.1', async () => {
    const { apiKey } = await createTestWorkspace();
    const page = await browserHolder.browser.newPage();
    try {
      await page.goto(`${server.baseUrl}/docs`);
      await page.locator('button.authorize').first().click();
      await page.locator('.auth-container input').first().fill(apiKey);
      await page.locator('.auth-btn-wrapper button.authorize').first().click();
      await page.locator('.auth-btn-wrapper button.btn-done').first().click();
      const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/api/user"]') });
      await operation.locator('.opblock-summary').click();
      await operation.locator('button.try-out__btn').click();
      await operation.locator('button.execute').click();
      const status = operation.locator('.live-responses-table td.response-col_status:not(.col_header)');
      await status.waitFor({ timeout: 15_000 });
      expect((await status.innerText()).trim()).toBe('200');
    } finally {
      await page.close();
    }
  }, 60_000);
});
