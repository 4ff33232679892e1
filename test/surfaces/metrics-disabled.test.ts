import { describe, expect, it } from 'vitest';
import { useApiServer } from '../support/api-server.ts';

const server = useApiServer({ METRICS_ENABLED: 'false' });

describe('METRICS_ENABLED=false', () => {
  it('serves no /metrics', async () => {
    const res = await server.request('GET', '/metrics');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});
