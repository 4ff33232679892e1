import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { useApiServer } from '../support/api-server.ts';

const server = useApiServer();

describe('OpenAPI document and reference page', () => {
  it('serves a valid OpenAPI 3.1 document with every documented path', async () => {
    const res = await server.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const document = res.body;
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('2.0.0');
    await SwaggerParser.validate(structuredClone(document));
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /api/user',
        'GET /api/leads',
        'POST /api/leads',
        'PATCH /api/leads',
        'DELETE /api/leads',
        'PATCH /api/leads/{id}',
        'GET /api/leads/capacity',
        'GET /api/leads/fields',
        'POST /api/leads/fields',
        'GET /api/leads/research-profiles',
        'POST /api/leads/research-profiles',
        'GET /api/leads/validate',
        'POST /api/scrapers',
        'GET /api/scrapers',
        'GET /api/scrapers/{id}',
        'PATCH /api/scrapers/{id}',
        'DELETE /api/scrapers/{id}',
        'POST /api/scrape/{scraperId}',
        'GET /api/scrape/runs/{runId}',
        'GET /api/{scraperId}/data/{runId}',
        'POST /api/endpoints',
        'GET /api/endpoints',
        'GET /api/endpoints/{id}',
        'PATCH /api/endpoints/{id}',
        'DELETE /api/endpoints/{id}',
        'GET /v1/e/{slug}',
        'POST /v1/e/{slug}',
        'GET /v1/e/{slug}/results/{runId}',
      ].sort(),
    );
  });

  it('documents statuses and bodies the way the server answers', async () => {
    const { paths, components } = (await server.request('GET', '/openapi.json')).body;
    expect(Object.keys(paths['/api/leads'].post.responses)).toContain('201');
    expect(paths['/api/leads'].delete.requestBody.content['application/json'].schema.properties.ids.maxItems).toBe(500);
    expect(paths['/api/leads'].delete.parameters ?? []).toEqual([]);
    expect(paths['/api/leads'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['q', 'status', 'agent_run_id', 'brand', 'limit', 'offset']);
    expect(paths['/api/leads'].get.responses['403'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    expect(components.schemas.Error.required).toEqual(['error', 'code']);
    expect(components.schemas.Lead.properties.email.description).toBe('Email address.');
  });

  it('serves the interactive reference with local assets only', async () => {
    const page = await server.request('GET', '/docs');
    expect(page.status).toBe(200);
    const assets = [...(page.body as string).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith('/docs/'), asset).toBe(true);
      const res = await fetch(`${server.baseUrl}${asset}`);
      expect(res.status, asset).toBe(200);
    }
    expect((await server.request('GET', '/docs/../package.json')).status).toBe(404);
  });

  it('answers /healthz once the database is connected', async () => {
    const res = await server.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });
});
