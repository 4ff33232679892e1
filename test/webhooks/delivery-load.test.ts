import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useWebhookReceiver } from '../support/webhook-receiver.ts';

/** Many events for one endpoint at once: a receiver on loopback that answers slowly, the API and a worker (2 POSTs at once). */
const receiver = useWebhookReceiver();
const server = useApiServer({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1', WORKER_CONCURRENCY: '2' }, { worker: true });

describe('webhook deliveries under load', () => {
  it('reach a slow receiver once each, never more POSTs at once than WORKER_CONCURRENCY', async () => {
    const { apiKey } = await createTestWorkspace();
    const created = await server.request('POST', '/api/webhooks', { key: apiKey, body: { url: receiver.url, events: ['*'] } });
    expect(created.status).toBe(201);
    const id = created.body.webhook.id as string;
    receiver.answer(...Array.from({ length: 12 }, () => ({ status: 204, delayMs: 150 })));

    const tests = await Promise.all(Array.from({ length: 12 }, () => server.request('POST', `/api/webhooks/${id}/test`, { key: apiKey })));
    expect(tests.map((res) => res.status)).toEqual(Array(12).fill(202));
    const eventIds = tests.map((res) => res.body.delivery.event_id as string);

    const arrived = await receiver.waitFor(12);
    expect(arrived.map((delivery) => delivery.headers['webhook-id']).sort()).toEqual([...eventIds].sort());
    expect(receiver.peakInFlight).toBe(2);

    // Attempts are recorded together once their batch is done.
    let deliveries: Array<{ event_id: string; status: string; attempts: unknown[] }> = [];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      deliveries = (await server.request('GET', `/api/webhooks/${id}/deliveries?limit=50`, { key: apiKey })).body.deliveries;
      if (deliveries.every((d) => d.status !== 'pending')) break;
    }
    expect(deliveries.map((d) => d.event_id).sort()).toEqual([...eventIds].sort());
    expect(deliveries.map((d) => [d.status, d.attempts.length])).toEqual(Array(12).fill(['delivered', 1]));
    expect(receiver.received).toHaveLength(12);
  });
});
