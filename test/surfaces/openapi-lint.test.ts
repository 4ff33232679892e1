import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { eventTypes } from '../../src/events/event-types.ts';
import { useApiServer } from '../support/api-server.ts';

/** The served /openapi.json as third-party generators and linters read it. */
const server = useApiServer();
const served = async () => (await server.request('GET', '/openapi.json')).body;
type Operation = { operationId?: string; requestBody?: { content: Record<string, { schema: Record<string, any> }> } };

describe('the OpenAPI document for generated clients', () => {
  it("passes Redocly's recommended lint with no warning but the licence the project chooses not to state", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(await served()),
      absoluteRef: `${server.baseUrl}/openapi.json`,
      config,
    });
    // Paths the contract fixes that one URL could match both only with a lead id `validate` or `imports`: lead ids are
    // UUIDs (`format: uuid`), so none does.
    const contractPairs = [
      '`/api/leads/{id}/activity` and `/api/leads/validate/{id}`',
      '`/api/leads/{id}/activity` and `/api/leads/imports/{id}`',
    ];
    const reported = problems
      .filter((problem) => problem.ruleId !== 'info-license')
      .filter((problem) => !(problem.ruleId === 'no-ambiguous-paths' && contractPairs.some((pair) => problem.message.includes(pair))))
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(reported).toEqual([]);
  });

  it('declares the headers it reads and sends as components, referenced wherever they apply', async () => {
    const { paths, components } = await served();
    expect(Object.keys(components.headers).sort()).toEqual([
      'Age',
      'Idempotent-Replayed',
      'RateLimit-Limit',
      'RateLimit-Policy',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'X-Cache',
      'X-Endpoint-Health',
      'X-Request-Id',
    ]);
    expect(components.headers['RateLimit-Remaining'].schema).toEqual({ type: 'integer', minimum: 0 });
    expect(components.parameters.IdempotencyKey).toMatchObject({
      in: 'header',
      name: 'Idempotency-Key',
      schema: { type: 'string', maxLength: 255 },
    });
    const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
    type Declared = { parameters?: unknown[]; responses: Record<string, { headers?: Record<string, unknown> }> };
    let posts = 0;
    for (const [path, operations] of Object.entries(paths as Record<string, Record<string, Declared>>)) {
      for (const [method, { parameters = [], responses }] of Object.entries(operations)) {
        const where = `${method} ${path}`;
        if (method === 'post') {
          posts++;
          expect(parameters, where).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
        }
        for (const [status, { headers }] of Object.entries(responses)) {
          expect(headers?.['X-Request-Id'], `${where} ${status}`).toEqual(ref('X-Request-Id'));
          if (!status.startsWith('2')) continue;
          expect(headers?.['RateLimit-Remaining'], `${where} ${status}`).toEqual(ref('RateLimit-Remaining'));
          if (method === 'post') expect(headers?.['Idempotent-Replayed'], `${where} ${status}`).toEqual(ref('Idempotent-Replayed'));
        }
        expect(responses['401']?.headers?.['RateLimit-Remaining'], `${where} 401`).toBeUndefined();
      }
    }
    expect(posts).toBeGreaterThanOrEqual(20);
    expect(paths['/v1/e/{slug}'].get.responses['200'].headers).toMatchObject({ 'X-Cache': ref('X-Cache'), Age: ref('Age') });
  });

  it('names every operation, the published-endpoint call included', async () => {
    const { paths } = await served();
    const unnamed = Object.entries(paths as Record<string, Record<string, Operation>>).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => !operation.operationId)
        .map(([method]) => `${method} ${path}`),
    );
    expect(unnamed).toEqual([]);
    expect(paths['/v1/e/{slug}'].get.operationId).toBe('endpoints-invoke');
  });

  it('types each webhook event: its message, and its data as a named schema', async () => {
    const { webhooks, components } = await served();
    expect(Object.keys(webhooks).sort()).toEqual([...eventTypes].sort());
    const message = (type: string) => (webhooks[type].post as Operation).requestBody!.content['application/json']!.schema;
    expect(message('scrape.run.completed')).toMatchObject({
      required: ['type', 'timestamp', 'data'],
      properties: { type: { const: 'scrape.run.completed' } },
    });
    expect(message('scrape.run.failed').properties.data.$ref).toBe('#/components/schemas/ScrapeRunEvent');
    expect(components.schemas.ScrapeRunEvent.required).toEqual([
      'runId',
      'scraperId',
      'url',
      'pages',
      'creditsCharged',
      'error',
      'errorCode',
    ]);
    expect(message('outreach.lead.unsubscribed').properties.data.$ref).toBe('#/components/schemas/Lead');
    expect(message('agent.run.paused').properties.data.$ref).toBe('#/components/schemas/AgentRun');
    expect(message('webhook.test').properties.data.$ref).toBe('#/components/schemas/WebhookTestEvent');
    for (const type of eventTypes) {
      const name = (message(type).properties.data.$ref as string).split('/').pop()!;
      expect(components.schemas[name], type).toBeDefined();
    }
  });

  it('defines every required key as a property, enum-keyed records included', async () => {
    const document = await served();
    const undefinedKeys: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const schema = node as { required?: unknown; properties?: Record<string, unknown> };
      if (Array.isArray(schema.required))
        for (const key of schema.required) if (!schema.properties?.[key]) undefinedKeys.push(`${at}: ${key}`);
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
    };
    walk(document, '#');
    expect(undefinedKeys).toEqual([]);
    expect(document.components.schemas.ValidationJob.properties.counts.properties.accept_all).toEqual({ type: 'integer' });
    const replies = document.paths['/api/outreach/replies'].get.responses['200'].content['application/json'].schema;
    // The counts are a named component (ReplyCounts), referred to from the reply list.
    const counts = document.components.schemas[String(replies.properties.counts.$ref).split('/').at(-1)!];
    expect(Object.keys(counts.properties.sentiment.properties)).toEqual([
      'positive',
      'neutral',
      'negative',
      'objection',
      'unsubscribe',
      'ooo',
      'referral',
    ]);
  });
});
