import { describe, expect, it } from 'vitest';
import { useApiServer } from '../support/api-server.ts';

const server = useApiServer();

const head = (path: string) => fetch(`${server.baseUrl}${path}`, { method: 'HEAD', redirect: 'manual' });

describe('HEAD', () => {
  it('answers with the head GET would answer with, and no body', async () => {
    const health = await head('/healthz');
    const healthGet = await fetch(`${server.baseUrl}/healthz`);
    expect(health.status).toBe(healthGet.status);
    expect(health.headers.get('content-type')).toBe(healthGet.headers.get('content-type'));
    expect(health.headers.get('content-length')).toBe(healthGet.headers.get('content-length'));
    expect(await health.text()).toBe('');

    const asset = await head('/docs/swagger-ui.css');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/css');
    expect(await asset.text()).toBe('');

    const root = await head('/');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('docs');
    expect(root.headers.get('x-request-id')).toBeTruthy();
  });

  it('is not a method of the REST operations: 405 naming the ones there are', async () => {
    const res = await head('/api/leads');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect(await res.text()).toBe('');
  });
});
