import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { serveFixture, type FixtureSite } from '../support/fixture-sites.ts';
import { createScraper, scrapeEnv } from '../support/scraping.ts';

const server = useApiServer(scrapeEnv, { worker: true });

/** A shop whose markup the test changes: `products` as today, `redesign` with other classes, `no-prices` without prices. */
let markup: 'products' | 'redesign' | 'no-prices' = 'products';
let site: FixtureSite;
beforeAll(async () => {
  site = await serveFixture((_req, res) => {
    const body = {
      products:
        '<div class="product"><h2>Lamp</h2><span class="price">$12.50</span></div><div class="product"><h2>Desk</h2><span class="price">$99</span></div>',
      redesign: '<article class="card"><h3>Lamp</h3><b>$12.50</b></article>',
      'no-prices': '<div class="product"><h2>Lamp</h2><span class="price">call us</span></div>',
    }[markup];
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><body>${body}</body></html>`);
  });
});
afterAll(() => site.close());

const outputSchema = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: { type: 'object', properties: { title: { type: 'string' }, price: { type: 'number' } }, required: ['title', 'price'] },
    },
  },
  required: ['items'],
};

const endpointEvents = (endpointId: string) =>
  mongoose.connection
    .db!.collection('events')
    .find({ 'data.endpoint_id': endpointId })
    .sort({ createdAt: 1 })
    .project({ _id: 0, type: 1, data: 1 })
    .toArray();

describe('published endpoints notice drift', () => {
  it('marks the endpoint drifted once when its site changes, answers the drifted result marked, and recovers once', async () => {
    const { apiKey, keyWith } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey, {
      name: 'Shop',
      extract: { items: '.product', fields: { title: { selector: 'h2' }, price: { selector: '.price', type: 'number' } } },
    });
    const created = await server.request('POST', '/api/endpoints', {
      key: apiKey,
      body: {
        slug: 'shop',
        name: 'Shop',
        scraper_id: scraperId,
        url_template: `${site.origin}/`,
        freshness: 'always_fresh',
        output_schema: outputSchema,
      },
    });
    expect(created.body.endpoint).toMatchObject({ health: 'ok', drift: null });
    const endpointId = created.body.endpoint.id;
    const invokeKey = await keyWith('endpoints:invoke');
    const invoke = () => server.request('GET', '/v1/e/shop', { key: invokeKey });
    const read = async () => (await server.request('GET', `/api/endpoints/${endpointId}`, { key: apiKey })).body.endpoint;

    markup = 'products';
    const healthy = await invoke();
    expect(healthy.status).toBe(200);
    expect(healthy.headers.get('x-endpoint-health')).toBe('ok');
    expect(healthy.body.items).toHaveLength(2);

    // The redesign: no items where the last healthy result had two.
    markup = 'redesign';
    const empty = await invoke();
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ items: [] });
    expect(empty.headers.get('x-endpoint-health')).toBe('drifted');
    const drifted = await read();
    expect(drifted).toMatchObject({
      health: 'drifted',
      drift: { at: expect.any(String), run_id: expect.any(String), errors: [expect.stringContaining('no items')] },
    });
    expect((await server.request('GET', '/api/endpoints', { key: apiKey })).body[0]).toMatchObject({ health: 'drifted' });

    // Still drifted, now failing the output schema: 422 as before, and no second event.
    markup = 'no-prices';
    const invalid = await invoke();
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ code: 'run_failed', error: expect.stringContaining('output schema') });
    expect(await read()).toMatchObject({ health: 'drifted', drift: { run_id: drifted.drift.run_id } });

    markup = 'products';
    const back = await invoke();
    expect(back.status).toBe(200);
    expect(back.headers.get('x-endpoint-health')).toBe('ok');
    expect(await read()).toMatchObject({ health: 'ok', drift: null });

    await new Promise((r) => setTimeout(r, 1_500)); // the runs' events reach the subscriber too: still once each
    expect(await endpointEvents(endpointId)).toEqual([
      {
        type: 'endpoint.output.drifted',
        data: { endpoint_id: endpointId, slug: 'shop', run_id: drifted.drift.run_id, errors: drifted.drift.errors },
      },
      { type: 'endpoint.output.recovered', data: { endpoint_id: endpointId, slug: 'shop', run_id: expect.any(String), errors: [] } },
    ]);
  });

  it('goes drifted on a first result that fails the output schema', async () => {
    const { apiKey, keyWith } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey, {
      name: 'Shop',
      extract: { items: '.product', fields: { title: { selector: 'h2' }, price: { selector: '.price', type: 'number' } } },
    });
    const created = await server.request('POST', '/api/endpoints', {
      key: apiKey,
      body: { slug: 'shop', name: 'Shop', scraper_id: scraperId, url_template: `${site.origin}/`, output_schema: outputSchema },
    });
    markup = 'no-prices';
    expect((await server.request('GET', '/v1/e/shop', { key: await keyWith('endpoints:invoke') })).status).toBe(422);
    const endpoint = (await server.request('GET', `/api/endpoints/${created.body.endpoint.id}`, { key: apiKey })).body.endpoint;
    expect(endpoint).toMatchObject({ health: 'drifted', drift: { errors: [expect.stringContaining('price')] } });
  });
});
