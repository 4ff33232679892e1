import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { startService } from '../support/processes.ts';
import { useWebhookReceiver } from '../support/webhook-receiver.ts';

// The API runs here without a worker; workers are separate processes, the first killed mid-delivery.
const env = { OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' };
const receiver = useWebhookReceiver();
const server = useApiServer(env);
const startWorkerProcess = () =>
  startService(
    process.execPath,
    ['src/main.ts', 'worker'],
    {
      ...env,
      MONGODB_URI: server.databaseUri,
      SECRETS_KEY: testSecretsKey,
      WEBHOOK_LOCK_LIFETIME_MS: '2000',
      LOG_LEVEL: 'error',
      PORT: '0',
    },
    null,
  );

async function deliveriesOf(key: string, id: string) {
  return (await server.request('GET', `/api/webhooks/${id}/deliveries`, { key })).body.deliveries as Array<Record<string, any>>;
}

describe('webhook deliveries that meet trouble', () => {
  it('are sent again, with the same webhook-id, when the worker sending them dies', async () => {
    const { apiKey } = await createTestWorkspace();
    const { webhook } = (await server.request('POST', '/api/webhooks', { key: apiKey, body: { url: receiver.url, events: ['*'] } })).body;
    receiver.reset();
    receiver.answer({ status: 200, delayMs: 10_000 });
    const first = await startWorkerProcess();
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    await receiver.waitFor(1);
    first.kill();
    const second = await startWorkerProcess();
    try {
      const [lost, resent] = await receiver.waitFor(2, 30_000);
      expect(resent!.headers['webhook-id']).toBe(lost!.headers['webhook-id']);
      expect(resent!.body).toBe(lost!.body);
      for (let tries = 0; (await deliveriesOf(apiKey, webhook.id))[0]?.status !== 'delivered'; tries++) {
        expect(tries).toBeLessThan(100);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect((await deliveriesOf(apiKey, webhook.id))[0]!.attempts).toHaveLength(1);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('never reach an address the guard refuses, though the URL was allowed when it was set', async () => {
    const { apiKey } = await createTestWorkspace();
    const { webhook } = (await server.request('POST', '/api/webhooks', { key: apiKey, body: { url: receiver.url, events: ['*'] } })).body;
    // What a name rebound to another address amounts to: the stored target is now one the guard does not exempt.
    await mongoose.connection
      .db!.collection('webhooks')
      .updateOne({ _id: webhook.id }, { $set: { url: receiver.url.replace('127.0.0.1', '127.0.0.2') } });
    receiver.reset();
    const worker = await startWorkerProcess();
    try {
      await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
      let delivery: Record<string, any> | undefined;
      for (let tries = 0; !delivery?.attempts.length; tries++) {
        expect(tries).toBeLessThan(100);
        await new Promise((r) => setTimeout(r, 100));
        delivery = (await deliveriesOf(apiKey, webhook.id))[0];
      }
      expect(delivery!.attempts[0]).toMatchObject({
        status_code: null,
        error: expect.stringMatching(/127\.0\.0\.2.*may not reach|not allowed/),
      });
      expect(delivery!.status).toBe('pending');
      expect(receiver.received).toEqual([]);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
