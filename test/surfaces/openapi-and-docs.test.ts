import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import type { PublishedEndpoint } from '../../schema/endpoints.ts';
import { errorStatus } from '../../schema/error-codes.ts';
import { withPublishedEndpoints } from '../../src/http/surfaces/openapi.ts';
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
        'GET /api/brands',
        'POST /api/brands',
        'GET /api/leads',
        'POST /api/leads',
        'PATCH /api/leads',
        'DELETE /api/leads',
        'PATCH /api/leads/{id}',
        'GET /api/leads/{id}',
        'GET /api/leads/{id}/activity',
        'GET /api/leads/capacity',
        'GET /api/leads/export',
        'GET /api/leads/fields',
        'POST /api/leads/fields',
        'GET /api/leads/imports',
        'POST /api/leads/imports',
        'GET /api/leads/imports/{id}',
        'GET /api/leads/imports/{id}/rejected',
        'GET /api/leads/research-profiles',
        'POST /api/leads/research-profiles',
        'GET /api/leads/validate',
        'POST /api/leads/validate',
        'GET /api/leads/validate/{id}',
        'POST /api/leads/validate/{id}/cancel',
        'GET /api/leads/validate/{id}/results',
        'POST /api/leads/find-email',
        'POST /api/leads/validate/address',
        'GET /api/members',
        'POST /api/members',
        'DELETE /api/members/{id}',
        'POST /api/privacy/export',
        'POST /api/privacy/erase',
        'GET /api/privacy/requests',
        'POST /api/scrapers',
        'GET /api/scrapers',
        'GET /api/scrapers/{id}',
        'PATCH /api/scrapers/{id}',
        'DELETE /api/scrapers/{id}',
        'GET /api/scrapers/{id}/runs',
        'POST /api/folders',
        'GET /api/folders',
        'PATCH /api/folders/{id}',
        'DELETE /api/folders/{id}',
        'POST /api/scrape/{scraperId}',
        'GET /api/scrape/runs/{runId}',
        'POST /api/scrape/runs/{runId}/cancel',
        'GET /api/{scraperId}/data/{runId}',
        'POST /api/schedules',
        'GET /api/schedules',
        'GET /api/schedules/{id}',
        'PATCH /api/schedules/{id}',
        'DELETE /api/schedules/{id}',
        'POST /api/endpoints',
        'GET /api/endpoints',
        'GET /api/endpoints/{id}',
        'PATCH /api/endpoints/{id}',
        'DELETE /api/endpoints/{id}',
        'GET /v1/e/{slug}',
        'POST /v1/e/{slug}',
        'GET /v1/e/{slug}/results/{runId}',
        'POST /api/outreach/inboxes',
        'GET /api/outreach/inboxes',
        'PATCH /api/outreach/inboxes/{id}',
        'DELETE /api/outreach/inboxes/{id}',
        'POST /api/outreach/sequences',
        'GET /api/outreach/sequences',
        'PATCH /api/outreach/sequences/{id}',
        'DELETE /api/outreach/sequences/{id}',
        'GET /api/outreach/suppressions',
        'POST /api/outreach/suppressions',
        'DELETE /api/outreach/suppressions',
        'POST /api/outreach/campaigns',
        'GET /api/outreach/campaigns',
        'PATCH /api/outreach/campaigns',
        'GET /api/outreach/campaigns/{id}',
        'GET /api/outreach/campaigns/{id}/stats',
        'POST /api/outreach/campaigns/{id}/enroll',
        'POST /api/outreach/campaigns/{id}/remove',
        'POST /api/outreach/campaigns/{id}/move',
        'POST /api/outreach/send',
        'GET /api/outreach/stats',
        'GET /api/outreach/replies',
        'GET /api/outreach/replies/{id}',
        'POST /api/outreach/replies/{id}/reply',
        'POST /api/agents/runs',
        'GET /api/agents/runs',
        'GET /api/agents/runs/{id}',
        'POST /api/agents/runs/{id}/reply',
        'POST /api/agents/runs/{id}/cancel',
        'POST /api/skills',
        'GET /api/skills',
        'DELETE /api/skills/{id}',
        'POST /api/webhooks',
        'GET /api/webhooks',
        'GET /api/webhooks/{id}',
        'PATCH /api/webhooks/{id}',
        'DELETE /api/webhooks/{id}',
        'POST /api/webhooks/{id}/test',
        'GET /api/webhooks/{id}/deliveries',
        'POST /api/webhooks/{id}/deliveries/{deliveryId}/retry',
        'POST /api/keys',
        'GET /api/keys',
        'DELETE /api/keys/{id}',
        'GET /api/usage',
      ].sort(),
    );
  });

  it('documents statuses and bodies the way the server answers', async () => {
    const { paths, components } = (await server.request('GET', '/openapi.json')).body;
    expect(Object.keys(paths['/api/leads'].post.responses)).toContain('201');
    expect(paths['/api/leads'].delete.requestBody.content['application/json'].schema.properties.ids.maxItems).toBe(500);
    expect(paths['/api/leads'].delete.parameters ?? []).toEqual([]);
    expect(paths['/api/leads'].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      'q',
      'status',
      'agent_run_id',
      'brand',
      'score_min',
      'score_max',
      'email_status',
      'has_email',
      'created_after',
      'created_before',
      'updated_after',
      'custom',
      'limit',
      'offset',
      'cursor',
    ]);
    expect(components.schemas.Lead.properties.email.description).toBe('Email address.');
    const body = (operation: { responses: Record<string, { content: Record<string, { schema: Record<string, any> }> }> }, status: number) =>
      operation.responses[String(status)]!.content['application/json']!.schema;

    // A run starts with 202 (queued) and, with options.wait, may answer 200 (the completed result): each with its own body.
    const start = paths['/api/scrape/{scraperId}'].post;
    expect(Object.keys(start.responses).filter((status) => status < '300')).toEqual(['200', '202']);
    expect(body(start, 202).properties.data.required).toEqual(['runId', 'status', 'message']);
    expect(body(start, 200).properties.metadata.required).toContain('creditsCost');
    // The data route answers the extracted JSON itself (any JSON), or { runId, status } before it is there.
    const data = paths['/api/{scraperId}/data/{runId}'].get;
    expect(body(data, 200)).toEqual({});
    expect(body(data, 202)).toMatchObject({ required: ['runId', 'status'], properties: { status: { enum: ['queued', 'running'] } } });
    expect(body(paths['/v1/e/{slug}'].post, 200)).toEqual({});

    // Error statuses each operation can answer, each with the codes answered with it.
    const codes = (operation: Parameters<typeof body>[0], status: number) => body(operation, status).allOf[1].properties.code.enum;
    expect(codes(paths['/api/leads/{id}'].patch, 409)).toEqual(['conflict']);
    expect(codes(paths['/api/leads/{id}'].patch, 403)).toEqual(['missing_permission', 'lead_limit']);
    expect(codes(paths['/api/scrapers/{id}'].delete, 409)).toEqual(['conflict']);
    expect(codes(paths['/api/endpoints'].post, 409)).toEqual(['idempotency_in_progress', 'conflict']);
    expect(codes(paths['/api/leads'].post, 400)).toEqual(['validation_failed', 'invalid_json']);
    expect(codes(paths['/api/leads'].post, 413)).toEqual(['payload_too_large']);
    expect(codes(paths['/api/leads'].post, 415)).toEqual(['unsupported_media_type']);
    expect(codes(paths['/api/{scraperId}/data/{runId}'].get, 422)).toEqual(['run_failed']);
    expect(codes(paths['/v1/e/{slug}'].get, 405)).toEqual(['method_not_allowed']);
    expect(codes(paths['/api/leads'].get, 429)).toEqual(['rate_limited']);
    expect(paths['/api/leads'].get.responses['429'].headers['Retry-After']).toBeDefined();
    // Scraping routes: scraping-style bodies, and no credits is 403 there (402 elsewhere).
    expect(codes(start, 403)).toEqual(['missing_permission', 'insufficient_credits']);
    expect(codes(start, 400)).toEqual(['validation_failed', 'invalid_json', 'url_not_allowed']);
    expect(body(start, 403).allOf[0].$ref).toBe('#/components/schemas/ScrapingError');
    expect(body(paths['/api/leads'].get, 403).allOf[0].$ref).toBe('#/components/schemas/Error');
    // The server's own 414 and 431 come before any route: never scraping-style.
    expect(body(start, 414).allOf[0].$ref).toBe('#/components/schemas/Error');
    // Only what can happen: no 403 or 400 for a call any key may make without input, no 404 without ids or lookups.
    expect(Object.keys(paths['/api/user'].get.responses)).toEqual(['200', '401', '414', '429', '431', '500', '503']);
    expect(Object.keys(paths['/api/leads/capacity'].get.responses)).toEqual(['200', '401', '403', '414', '429', '431', '500', '503']);
    for (const [path, operations] of Object.entries(paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['401', '414', '429', '431', '500', '503']),
        );
      }
    }
    // The database's faults: 503 everywhere, with when to retry; 507 (a full disk) where the call changes data, a GET
    // of a published endpoint included (it runs a scrape).
    expect(codes(paths['/api/leads'].get, 503)).toEqual(['database_unavailable']);
    expect(paths['/api/leads'].get.responses['503'].headers['Retry-After']).toBeDefined();
    expect(codes(paths['/api/leads'].post, 507)).toEqual(['storage_full']);
    expect(codes(paths['/v1/e/{slug}'].get, 507)).toEqual(['storage_full']);
    expect(paths['/api/leads'].get.responses['507']).toBeUndefined();
  });

  it('types the error bodies once, with every code and extra field, and nothing the server never sends', async () => {
    const res = await server.request('GET', '/openapi.json');
    const { components } = res.body;
    expect(Object.keys(components.schemas).filter((name) => name.startsWith('error.'))).toEqual([]);
    const error = components.schemas.Error;
    expect(error.required).toEqual(['error', 'code']);
    expect(error.additionalProperties).toBe(false);
    expect(error.properties.code.enum).toEqual(Object.keys(errorStatus));
    expect(Object.keys(error.properties).sort()).toEqual(
      [
        'error',
        'code',
        'field',
        'issues',
        'permission',
        'plan',
        'required',
        'retryAfter',
        'used',
        'limit',
        'needed',
        'remaining',
        'endpoints',
        'runId',
        'campaigns',
        'status',
        'kind',
        'cap',
        'stored',
        'smtpCode',
        'emailStatus',
      ].sort(),
    );
    expect(error.properties.retryAfter.description).toContain('rate_limited');
    expect(components.schemas.ScrapingError.required).toEqual(['error', 'code', 'success', 'errorType']);
    expect(components.schemas.ScrapingError.properties.success).toMatchObject({ const: false });
    // zod's safe-integer bounds are no bounds: not documented (reference pages showed them as examples).
    expect(JSON.stringify(res.body)).not.toContain('9007199254740991');
    expect(components.schemas.ScrapeRun.properties.pages).toEqual({ type: 'integer', description: 'Pages fetched and used.' });
  });

  it("types a workspace's endpoint at its own path, answering as /v1/e/{slug} does with its method", async () => {
    const document = (await server.request('GET', '/openapi.json')).body;
    const outputSchema = { type: 'array', items: { type: 'object', properties: { title: { type: 'string' } } } };
    const endpoint = {
      slug: 'shop-search',
      name: 'Shop search',
      description: null,
      method: 'GET',
      param_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      output_schema: outputSchema,
    };
    const typed = withPublishedEndpoints(document, [endpoint as unknown as PublishedEndpoint]).paths!['/v1/e/shop-search']!.get as {
      parameters: unknown;
      responses: Record<string, any>;
    };
    expect(typed.parameters).toEqual([{ in: 'query', name: 'q', required: true, schema: { type: 'string' } }]);
    expect(typed.responses['200'].content['application/json'].schema).toEqual(outputSchema);
    // Only its own method is documented there, so no 405; the rest as the generic path answers.
    const { '405': _, '200': __, ...rest } = document.paths['/v1/e/{slug}'].get.responses;
    expect(Object.keys(typed.responses).sort()).toEqual(['200', ...Object.keys(rest)].sort());
    expect(typed.responses['403']).toEqual(document.paths['/v1/e/{slug}'].get.responses['403']);
  });

  it("states each operation's permission in its description and as x-permission", async () => {
    const { paths } = (await server.request('GET', '/openapi.json')).body;
    expect(paths['/api/leads'].get['x-permission']).toBe('read');
    expect(paths['/api/leads'].get.description).toContain('Permission: `read`.');
    expect(paths['/api/scrape/{scraperId}'].post['x-permission']).toBe('scraper');
    expect(paths['/api/user'].get).toMatchObject({ 'x-permission': 'any', description: expect.stringContaining('Any valid credential') });
    const undocumented = Object.entries(paths as Record<string, Record<string, { 'x-permission'?: string }>>).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !op['x-permission'])
        .map(([method]) => `${method} ${path}`),
    );
    expect(undocumented).toEqual([]);
  });

  it('serves the interactive reference with local assets only', async () => {
    const page = await server.request('GET', '/docs');
    expect(page.status).toBe(200);
    const assets = [...(page.body as string).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      // Relative, so the page works under whatever path a proxy serves it.
      expect(asset.startsWith('docs/'), asset).toBe(true);
      const res = await fetch(new URL(asset, `${server.baseUrl}/docs`));
      expect(res.status, asset).toBe(200);
    }
    expect((await server.request('GET', '/docs/../package.json')).status).toBe(404);
    const trailingSlash = await fetch(`${server.baseUrl}/docs/`, { redirect: 'manual' });
    expect(trailingSlash.status).toBe(301);
    expect(new URL(trailingSlash.headers.get('location')!, `${server.baseUrl}/docs/`).pathname).toBe('/docs');
    // A browser opening the server's address lands on the reference.
    const root = await fetch(`${server.baseUrl}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(new URL(root.headers.get('location')!, `${server.baseUrl}/`).pathname).toBe('/docs');
  });

  it('answers /healthz once the database is connected', async () => {
    const res = await server.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });
});
