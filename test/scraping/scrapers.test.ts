import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

const catalogue = {
  name: 'Shop catalogue',
  extract: {
    items: '.product',
    fields: {
      title: { selector: 'h2' },
      price: { selector: '.price', type: 'number' },
      link: { selector: 'a', attribute: 'href', type: 'url' },
      tags: { selector: '.tag', all: true },
    },
  },
  follow: { next: 'a.next', max_pages: 5 },
};

describe('scrapers', () => {
  it('creates a scraper with defaults and a derived output schema', async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/scrapers', { key: apiKey, body: catalogue });
    expect(res.status).toBe(201);
    const { scraper } = res.body;
    expect(scraper).toMatchObject({
      id: expect.any(String),
      name: 'Shop catalogue',
      engine: 'http',
      respect_robots: true,
      follow: { next: 'a.next', max_pages: 5 },
      extract: { items: '.product', fields: { title: { selector: 'h2', all: false, type: 'string' } } },
    });
    expect(scraper.output_schema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['items'],
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['title', 'price', 'link', 'tags'],
            properties: {
              title: { anyOf: [{ type: 'string' }, { type: 'null' }] },
              price: { anyOf: [{ type: 'number' }, { type: 'null' }] },
              link: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] },
              tags: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    });
  });

  it('keeps a given output schema exactly, $-keys included', async () => {
    const { apiKey } = await createTestWorkspace();
    const output_schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'x',
      type: 'object',
      properties: { 'a.b': { type: 'string' } },
    };
    const res = await server.request('POST', '/api/scrapers', { key: apiKey, body: { ...catalogue, engine: 'browser', output_schema } });
    expect(res.status).toBe(201);
    expect(res.body.scraper.output_schema).toEqual(output_schema);
    const fetched = await server.request('GET', `/api/scrapers/${res.body.scraper.id}`, { key: apiKey });
    expect(fetched.body.scraper.output_schema).toEqual(output_schema);
    expect(fetched.body.scraper.engine).toBe('browser');
  });

  it('lists, updates and deletes', async () => {
    const { apiKey } = await createTestWorkspace();
    const first = (await server.request('POST', '/api/scrapers', { key: apiKey, body: { ...catalogue, name: 'First' } })).body.scraper;
    await server.request('POST', '/api/scrapers', { key: apiKey, body: { ...catalogue, name: 'Second' } });
    const list = await server.request('GET', '/api/scrapers', { key: apiKey });
    expect(list.body.scrapers.map((s: { name: string }) => s.name)).toEqual(['Second', 'First']);

    const updated = await server.request('PATCH', `/api/scrapers/${first.id}`, {
      key: apiKey,
      body: { name: 'Renamed', extract: { fields: { heading: { selector: 'h1' } } }, follow: null, respect_robots: false },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.scraper).toMatchObject({ name: 'Renamed', follow: null, respect_robots: false });
    expect(updated.body.scraper.output_schema.properties).toEqual({ heading: { anyOf: [{ type: 'string' }, { type: 'null' }] } });

    const removed = await server.request('DELETE', `/api/scrapers/${first.id}`, { key: apiKey });
    expect(removed.body).toEqual({ ok: true, id: first.id, runs_deleted: 0 });
    expect((await server.request('GET', `/api/scrapers/${first.id}`, { key: apiKey })).status).toBe(404);
  });

  it.each([
    [{ ...catalogue, extract: { fields: { title: { selector: 'h2[' } } } }, 'extract.fields.title.selector'],
    [{ ...catalogue, extract: { items: '::nope(', fields: { t: { selector: 'h2' } } } }, 'extract.items'],
    [{ ...catalogue, follow: { next: 'a[href', max_pages: 2 } }, 'follow.next'],
    [{ ...catalogue, follow: { next: 'a', max_pages: 101 } }, 'follow.max_pages'],
    [{ ...catalogue, extract: { fields: {} } }, 'extract.fields'],
    [{ ...catalogue, extract: { fields: { 'a.b': { selector: 'h1' } } } }, 'extract.fields.a.b'],
    [{ ...catalogue, extract: { fields: { t: { selector: 'h1', type: 'date' } } } }, 'extract.fields.t.type'],
    [{ ...catalogue, engine: 'curl' }, 'engine'],
    [{ ...catalogue, output_schema: { type: 'bogus' } }, 'output_schema'],
    [{ ...catalogue, name: '' }, 'name'],
  ])('answers 400 naming the field (%#: $1)', async (body, field) => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/scrapers', { key: apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  it('keeps scrapers to their workspace and needs write to change them', async () => {
    const owner = await createTestWorkspace();
    const other = await createTestWorkspace();
    const { scraper } = (await server.request('POST', '/api/scrapers', { key: owner.apiKey, body: catalogue })).body;
    expect((await server.request('GET', `/api/scrapers/${scraper.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await server.request('PATCH', `/api/scrapers/${scraper.id}`, { key: other.apiKey, body: { name: 'x' } })).status).toBe(404);
    expect((await server.request('DELETE', `/api/scrapers/${scraper.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await server.request('GET', '/api/scrapers', { key: other.apiKey })).body.scrapers).toEqual([]);
    const readKey = await owner.keyWith('read');
    expect((await server.request('GET', `/api/scrapers/${scraper.id}`, { key: readKey })).status).toBe(200);
    const denied = await server.request('POST', '/api/scrapers', { key: readKey, body: catalogue });
    expect(denied.status).toBe(403);
  });
});
