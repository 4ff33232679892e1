import { Webhook as Verifier } from 'standardwebhooks';
import { beforeEach, describe, expect, it } from 'vitest';
import { startRun, waitForRun } from '../support/agents.ts';
import { createTestWorkspace, useApiServer, type TestServer } from '../support/api-server.ts';
import { useWebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver.ts';

/** Webhook endpoints and their deliveries: a receiver on loopback, the API and a worker in this process. */
const receiver = useWebhookReceiver();
const server = useApiServer({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' }, { worker: true });
beforeEach(() => receiver.reset());

const create = async (key: string, body: Record<string, unknown>) => {
  const res = await server.request('POST', '/api/webhooks', { key, body: { url: receiver.url, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { webhook: Record<string, any>; secret: string };
};
const verified = (secret: string, delivery: ReceivedWebhook) =>
  new Verifier(secret).verify(delivery.body, delivery.headers as Record<string, string>) as {
    type: string;
    timestamp: string;
    data: Record<string, unknown>;
  };

async function deliveries(srv: TestServer, key: string, id: string) {
  const res = await srv.request('GET', `/api/webhooks/${id}/deliveries`, { key });
  expect(res.status).toBe(200);
  return res.body.deliveries as Array<Record<string, any>>;
}
async function waitForDelivery(key: string, id: string, done: (d: Record<string, any>) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await deliveries(server, key, id)).find(done);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no such delivery in ${timeoutMs} ms: ${JSON.stringify(await deliveries(server, key, id))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('webhook endpoints', () => {
  it('are created with a secret shown once, read, changed and deleted; the URL must be one deliveries may reach', async () => {
    const { apiKey } = await createTestWorkspace();
    const { webhook, secret } = await create(apiKey, { events: ['agent.run.completed'], description: 'CRM sync' });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(webhook).toMatchObject({
      url: receiver.url,
      events: ['agent.run.completed'],
      enabled: true,
      description: 'CRM sync',
      disabled_reason: null,
    });
    const read = await server.request('GET', `/api/webhooks/${webhook.id}`, { key: apiKey });
    expect(read.body).toEqual({ webhook });
    expect(JSON.stringify((await server.request('GET', '/api/webhooks', { key: apiKey })).body)).not.toContain(secret);

    const changed = await server.request('PATCH', `/api/webhooks/${webhook.id}`, { key: apiKey, body: { events: ['*'], enabled: false } });
    expect(changed.body.webhook).toMatchObject({ events: ['*'], enabled: false, disabled_reason: 'manual' });
    expect(changed.body).not.toHaveProperty('secret');

    for (const [url, status] of [
      ['http://192.168.10.20/hooks', 400], // a private address, refused before anything connects
      ['ftp://example.test/hooks', 400],
    ] as const) {
      const res = await server.request('POST', '/api/webhooks', { key: apiKey, body: { url, events: ['*'] } });
      expect(res.status, url).toBe(status);
      expect(JSON.stringify(res.body)).toContain('url');
    }
    const badEvent = await server.request('POST', '/api/webhooks', { key: apiKey, body: { url: receiver.url, events: ['lead.created'] } });
    expect(badEvent.status).toBe(400);
    expect(JSON.stringify(badEvent.body)).toContain('events');

    expect((await server.request('DELETE', `/api/webhooks/${webhook.id}`, { key: apiKey })).body).toEqual({ ok: true, id: webhook.id });
    expect((await server.request('GET', `/api/webhooks/${webhook.id}`, { key: apiKey })).status).toBe(404);
  });

  it('keeps endpoints to their workspace', async () => {
    const mine = await createTestWorkspace();
    const theirs = await createTestWorkspace();
    const { webhook } = await create(mine.apiKey, { events: ['*'] });
    expect((await server.request('GET', '/api/webhooks', { key: theirs.apiKey })).body.webhooks).toEqual([]);
    for (const [method, path] of [
      ['GET', `/api/webhooks/${webhook.id}`],
      ['DELETE', `/api/webhooks/${webhook.id}`],
      ['POST', `/api/webhooks/${webhook.id}/test`],
      ['GET', `/api/webhooks/${webhook.id}/deliveries`],
    ] as const) {
      expect((await server.request(method, path, { key: theirs.apiKey })).status, `${method} ${path}`).toBe(404);
    }
  });
});

describe('deliveries', () => {
  it('send a signed test event that Standard Webhooks verify accepts, recorded with its attempt', async () => {
    const { apiKey } = await createTestWorkspace();
    const { webhook, secret } = await create(apiKey, { events: ['agent.run.completed'] });
    const sent = await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    expect(sent.status).toBe(202);
    const [delivery] = await receiver.waitFor(1);
    const message = verified(secret, delivery!);
    expect(message).toMatchObject({ type: 'webhook.test', data: { webhook_id: webhook.id } });
    expect(delivery!.headers['webhook-id']).toBe(sent.body.delivery.event_id);
    expect(() =>
      new Verifier(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(delivery!.body, delivery!.headers as Record<string, string>),
    ).toThrow();

    const done = await waitForDelivery(apiKey, webhook.id, (d) => d.status === 'delivered');
    expect(done).toMatchObject({ event_type: 'webhook.test', next_attempt_at: null, attempts: [{ status_code: 204, error: null }] });
  });

  it('carry the events the endpoint subscribes to, with the resource as its GET answers it, and no others', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const { webhook, secret } = await create(apiKey, { events: ['agent.run.failed'] });
    const other = await create(apiKey, { events: ['agent.run.completed', 'scrape.run.completed'] });
    // No model and no search service: the run fails at once, saying why.
    const run = await startRun(server, apiKey, { goal: 'CTOs of fintech companies in Berlin' });
    const finished = await waitForRun(server, apiKey, run.run_id);
    const [delivery] = await receiver.waitFor(1);
    const message = verified(secret, delivery!);
    expect(message.type).toBe('agent.run.failed');
    expect(finished.status).toBe('failed');
    const { artifacts: _artifacts, ...asListed } = finished;
    expect(message.data).toEqual(asListed);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received).toHaveLength(1);
    expect(await deliveries(server, apiKey, other.webhook.id)).toEqual([]);
    expect((await deliveries(server, apiKey, webhook.id))[0]).toMatchObject({ status: 'delivered', event_type: 'agent.run.failed' });
  });

  it('retry a failed attempt after 5 seconds with the same webhook-id, and honour Retry-After on a 429', async () => {
    const { apiKey } = await createTestWorkspace();
    const { webhook } = await create(apiKey, { events: ['*'] });
    receiver.answer({ status: 500 }, { status: 200 });
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    const pending = await waitForDelivery(apiKey, webhook.id, (d) => d.attempts.length === 1);
    expect(pending).toMatchObject({ status: 'pending', attempts: [{ status_code: 500, error: 'HTTP 500' }] });
    const wait = Date.parse(pending.next_attempt_at) - Date.parse(pending.attempts[0].attempted_at);
    expect(wait).toBeGreaterThanOrEqual(4_900);
    expect(wait).toBeLessThan(6_000);
    const [first, second] = await receiver.waitFor(2, 15_000);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(4_500);
    await waitForDelivery(apiKey, webhook.id, (d) => d.status === 'delivered' && d.attempts.length === 2);

    receiver.reset();
    receiver.answer({ status: 429, headers: { 'retry-after': '120' } });
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    const throttled = await waitForDelivery(apiKey, webhook.id, (d) => d.attempts[0]?.status_code === 429);
    expect(Date.parse(throttled.next_attempt_at) - Date.parse(throttled.attempts[0].attempted_at)).toBeGreaterThanOrEqual(119_000);

    // Sent again now on request, as its next attempt, with the same webhook-id.
    const retried = await server.request('POST', `/api/webhooks/${webhook.id}/deliveries/${throttled.id}/retry`, { key: apiKey });
    expect(retried.status).toBe(202);
    const [, again] = await receiver.waitFor(2);
    expect(again!.headers['webhook-id']).toBe(throttled.event_id);
    await waitForDelivery(apiKey, webhook.id, (d) => d.id === throttled.id && d.status === 'delivered');
  }, 30_000);

  it('disable the endpoint when the receiver answers 410 Gone', async () => {
    const { apiKey } = await createTestWorkspace();
    const { webhook } = await create(apiKey, { events: ['*'] });
    receiver.answer({ status: 410 });
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    const failed = await waitForDelivery(apiKey, webhook.id, (d) => d.status === 'failed');
    expect(failed).toMatchObject({ next_attempt_at: null, attempts: [{ status_code: 410 }] });
    expect((await server.request('GET', `/api/webhooks/${webhook.id}`, { key: apiKey })).body.webhook).toMatchObject({
      enabled: false,
      disabled_reason: 'gone',
    });
  });

  it('are signed with both secrets during a rotation, each verifying', async () => {
    const { apiKey } = await createTestWorkspace();
    const { webhook, secret: old } = await create(apiKey, { events: ['*'] });
    const rotated = await server.request('PATCH', `/api/webhooks/${webhook.id}`, { key: apiKey, body: { rotate_secret: true } });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(old);
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    const [delivery] = await receiver.waitFor(1);
    expect(String(delivery!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(old, delivery!).type).toBe('webhook.test');
    expect(verified(rotated.body.secret, delivery!).type).toBe('webhook.test');
  });
});
