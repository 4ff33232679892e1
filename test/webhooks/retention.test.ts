import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { pruneIdempotencyRecords } from '../../src/idempotency/idempotency.service.ts';
import { pruneDeliveries } from '../../src/webhooks/deliveries.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useWebhookReceiver } from '../support/webhook-receiver.ts';

/** What time does to endpoints and records: 5 failing days disable an endpoint; deliveries go after 30 days, idempotency keys after 24 hours. */
const receiver = useWebhookReceiver();
const server = useApiServer({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' }, { worker: true });
const collection = (name: string) => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>(name);
const dayMs = 86_400_000;

describe('webhook retention', () => {
  it('disables an endpoint whose attempts have all failed for 5 days', async () => {
    const { apiKey } = await createTestWorkspace();
    const { webhook } = (await server.request('POST', '/api/webhooks', { key: apiKey, body: { url: receiver.url, events: ['*'] } })).body;
    await collection('webhooks').updateOne({ _id: webhook.id }, { $set: { failingSince: new Date(Date.now() - 5 * dayMs - 60_000) } });
    receiver.answer({ status: 500 });
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    let read: Record<string, any> = {};
    for (let tries = 0; read.enabled !== false; tries++) {
      expect(tries).toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 100));
      read = (await server.request('GET', `/api/webhooks/${webhook.id}`, { key: apiKey })).body.webhook;
    }
    expect(read).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    const [delivery] = (await server.request('GET', `/api/webhooks/${webhook.id}/deliveries`, { key: apiKey })).body.deliveries;
    expect(delivery).toMatchObject({ status: 'failed', next_attempt_at: null });
  });

  it('prunes deliveries (with their attempts) after 30 days and idempotency keys after 24 hours, keeping newer ones', async () => {
    const old = new Date(Date.now() - 31 * dayMs);
    const recent = new Date(Date.now() - 29 * dayMs);
    await collection('webhook_deliveries').insertMany([
      { _id: 'old-delivery', workspaceId: 'w', webhookId: 'h', eventId: 'e1', eventType: 'webhook.test', createdAt: old },
      { _id: 'recent-delivery', workspaceId: 'w', webhookId: 'h', eventId: 'e2', eventType: 'webhook.test', createdAt: recent },
    ]);
    await collection('webhook_attempts').insertMany([
      { _id: 'old-delivery:0', deliveryId: 'old-delivery', n: 0, durationMs: 1, outcome: 'delivered', attemptedAt: old },
      { _id: 'recent-delivery:0', deliveryId: 'recent-delivery', n: 0, durationMs: 1, outcome: 'delivered', attemptedAt: recent },
    ]);
    await collection('idempotency_records').insertMany([
      { _id: 'old-key', requestHash: 'x', state: 'done', createdAt: new Date(Date.now() - 25 * 3_600_000) },
      { _id: 'fresh-key', requestHash: 'x', state: 'done', createdAt: new Date(Date.now() - 23 * 3_600_000) },
    ]);
    expect(await pruneDeliveries()).toBe(1);
    expect(await pruneIdempotencyRecords()).toBe(1);
    expect(
      (
        await collection('webhook_deliveries')
          .find({ _id: { $in: ['old-delivery', 'recent-delivery'] } })
          .toArray()
      ).map((d) => d._id),
    ).toEqual(['recent-delivery']);
    expect(
      (
        await collection('webhook_attempts')
          .find({ deliveryId: { $in: ['old-delivery', 'recent-delivery'] } })
          .toArray()
      ).map((d) => d._id),
    ).toEqual(['recent-delivery:0']);
    expect(
      (
        await collection('idempotency_records')
          .find({ _id: { $in: ['old-key', 'fresh-key'] } })
          .toArray()
      ).map((d) => d._id),
    ).toEqual(['fresh-key']);
  });
});
