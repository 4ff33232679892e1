import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { startService } from '../support/processes.ts';
import { useWebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * A worker killed between an attempt's record and the queuing of the next attempt (test/support/crashing-service.ts kills
 * itself there), then another worker: the API runs here without a worker; workers are processes of their own.
 */
const env = { OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' };
const receiver = useWebhookReceiver();
const server = useApiServer(env);
const workerEnv = () => ({
  ...env,
  MONGODB_URI: server.databaseUri,
  SECRETS_KEY: testSecretsKey,
  WEBHOOK_LOCK_LIFETIME_MS: '2000',
  LOG_LEVEL: 'error',
  PORT: '0',
});

async function deliveriesOf(key: string, id: string) {
  return (await server.request('GET', `/api/webhooks/${id}/deliveries`, { key })).body.deliveries as Array<Record<string, any>>;
}
async function waitForDelivery(key: string, id: string, done: (d: Record<string, any>) => boolean, timeoutMs = 30_000) {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const [delivery] = await deliveriesOf(key, id);
    if (delivery && done(delivery)) return delivery;
    if (Date.now() > deadline) throw new Error(`the delivery did not get there in ${timeoutMs} ms: ${JSON.stringify(delivery)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a worker killed after recording a failed attempt, before queuing the next', () => {
  it('leaves the delivery to the next worker, which sends it again with the same webhook-id until delivered', async () => {
    const { apiKey } = await createTestWorkspace();
    const { webhook } = (await server.request('POST', '/api/webhooks', { key: apiKey, body: { url: receiver.url, events: ['*'] } })).body;
    receiver.reset();
    receiver.answer({ status: 500 });
    const crashing = await startService(
      process.execPath,
      ['test/support/crashing-service.ts', 'worker'],
      { ...workerEnv(), CRASH_BEFORE_QUEUING: 'webhooks.deliver:1' },
      null,
    );
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    expect(await crashing.exited, crashing.output()).toBe('SIGKILL');
    // It died with the first attempt recorded as failed, due again in 5 s, and nothing queued for it.
    const [atCrash] = await deliveriesOf(apiKey, webhook.id);
    expect(atCrash).toMatchObject({ status: 'pending', attempts: [{ status_code: 500 }] });
    expect(await mongoose.connection.db!.collection('agenda_jobs').countDocuments({ name: 'webhooks.deliver' })).toBe(0);

    const next = await startService(process.execPath, ['src/main.ts', 'worker'], workerEnv(), null);
    try {
      const done = await waitForDelivery(apiKey, webhook.id, (d) => d.status !== 'pending');
      expect(done).toMatchObject({ status: 'delivered', attempts: [{ status_code: 500 }, { status_code: 204 }] });
      const [first, again] = receiver.received;
      expect(receiver.received).toHaveLength(2);
      expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(again!.body).toBe(first!.body);
    } finally {
      await next.stop();
    }
  }, 60_000);
});
