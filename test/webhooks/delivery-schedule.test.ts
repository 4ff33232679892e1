import { Job } from 'agenda';
import mongoose from 'mongoose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getEvent } from '../../src/events/events.service.ts';
import { fanOut } from '../../src/webhooks/deliveries.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { useWebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * A delivery's schedule through a failed queuing of its next attempt (the store refusing the job once, as a crash
 * between the attempt's record and its next job leaves it) and through copies of one attempt's job: the API and a
 * worker in this process, on the test clock (the next attempt is 5 minutes after the second).
 */
const receiver = useWebhookReceiver();
const server = useApiServer({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' }, { worker: true });
const clock = useTestClock();
beforeEach(() => receiver.reset());

const jobs = () => mongoose.connection.db!.collection<{ name: string; data: Record<string, unknown> }>('agenda_jobs');

/** The queue refuses to save the job of attempt `n` once, the clock having moved past that attempt's time (5 min). */
function refuseQueuingOnce(n: number) {
  const save = Job.prototype.save;
  let refused = false;
  Job.prototype.save = function (this: Job) {
    const data = this.attrs.data as { attempt?: number } | undefined;
    if (this.attrs.name !== 'webhooks.deliver' || data?.attempt !== n || refused) return save.call(this);
    refused = true;
    clock.advance(5 * 60_000);
    return Promise.reject(new Error('the queue is unavailable'));
  };
  return () => refused;
}
const originalSave = Job.prototype.save;
afterEach(() => void (Job.prototype.save = originalSave));

async function deliveries(key: string, id: string) {
  return (await server.request('GET', `/api/webhooks/${id}/deliveries`, { key })).body.deliveries as Array<Record<string, any>>;
}
async function waitForDelivery(key: string, id: string, done: (d: Record<string, any>) => boolean, timeoutMs = 20_000) {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const [delivery] = await deliveries(key, id);
    if (delivery && done(delivery)) return delivery;
    if (Date.now() > deadline) throw new Error(`the delivery did not get there in ${timeoutMs} ms: ${JSON.stringify(delivery)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
async function webhookFor(key: string) {
  const res = await server.request('POST', '/api/webhooks', { key, body: { url: receiver.url, events: ['*'] } });
  return res.body.webhook as { id: string };
}
const sameWebhookId = () => new Set(receiver.received.map((r) => r.headers['webhook-id'])).size === 1;

describe('a delivery whose next attempt could not be queued', () => {
  it('is queued by the job of the attempt when it runs again, and delivered with the same webhook-id', async () => {
    const { apiKey } = await createTestWorkspace();
    const webhook = await webhookFor(apiKey);
    receiver.answer({ status: 500 }, { status: 500 });
    const refused = refuseQueuingOnce(2);
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    const done = await waitForDelivery(apiKey, webhook.id, (d) => d.status === 'delivered');
    expect(refused()).toBe(true);
    expect(done.attempts.map((a: Record<string, unknown>) => a.status_code)).toEqual([500, 500, 204]);
    expect(receiver.received).toHaveLength(3);
    expect(sameWebhookId()).toBe(true);
  }, 30_000);

  it('is queued when the job giving the attempt up runs again', async () => {
    const { apiKey } = await createTestWorkspace();
    const webhook = await webhookFor(apiKey);
    receiver.answer({ status: 500 });
    const refused = refuseQueuingOnce(2);
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    const pending = await waitForDelivery(apiKey, webhook.id, (d) => d.attempts.length === 1);
    // The job of the second attempt, as its workers left it had each died mid-attempt: its starts are spent.
    const queuedSecond = () => jobs().findOne({ name: 'webhooks.deliver', 'data.deliveryId': pending.id, 'data.attempt': 1 });
    for (const deadline = Date.now() + 5_000; !(await queuedSecond());) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 20));
    }
    const second = (await queuedSecond())!;
    await mongoose.connection.db!.collection('job_attempts').insertOne({ _id: String(second._id) as never, starts: 3 });
    const done = await waitForDelivery(apiKey, webhook.id, (d) => d.status === 'delivered');
    expect(refused()).toBe(true);
    expect(done.attempts).toMatchObject([
      { status_code: 500 },
      { status_code: null, error: 'the job was interrupted 3 times' },
      { status_code: 204 },
    ]);
    expect(receiver.received).toHaveLength(2);
    expect(sameWebhookId()).toBe(true);
  }, 30_000);
});

describe('copies of one attempt’s job', () => {
  it('make one POST: two retries asked at once and the scheduled attempt send the delivery once', async () => {
    const { apiKey } = await createTestWorkspace();
    const webhook = await webhookFor(apiKey);
    receiver.answer({ status: 500 }, { status: 204, delayMs: 1_000 });
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    const pending = await waitForDelivery(apiKey, webhook.id, (d) => d.attempts.length === 1);
    const retry = () => server.request('POST', `/api/webhooks/${webhook.id}/deliveries/${pending.id}/retry`, { key: apiKey });
    const answers = await Promise.all([retry(), retry()]);
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    await waitForDelivery(apiKey, webhook.id, (d) => d.status === 'delivered');
    // Every copy has run (the scheduled one 5 s after the first attempt), each job gone once done.
    for (const deadline = Date.now() + 15_000; await jobs().countDocuments({ 'data.deliveryId': pending.id });) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(receiver.received).toHaveLength(2);
    expect(sameWebhookId()).toBe(true);
    expect((await deliveries(apiKey, webhook.id))[0]!.attempts).toHaveLength(2);
  }, 30_000);

  it('are not made by an event handed on again: its next attempt, found recorded, is queued once', async () => {
    const { apiKey } = await createTestWorkspace();
    const webhook = await webhookFor(apiKey);
    receiver.answer({ status: 500 });
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { key: apiKey });
    const pending = await waitForDelivery(apiKey, webhook.id, (d) => d.attempts.length === 1);
    const queuedSecond = () => jobs().countDocuments({ 'data.deliveryId': pending.id, 'data.attempt': 1 });
    for (const deadline = Date.now() + 5_000; !(await queuedSecond());) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 20));
    }
    // A dispatcher that died before clearing the event hands it on again, twice here.
    const event = (await getEvent(pending.event_id))!;
    await Promise.all([fanOut([event]), fanOut([event])]);
    expect(await queuedSecond()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    await waitForDelivery(apiKey, webhook.id, (d) => d.status === 'delivered');
    expect(receiver.received).toHaveLength(2);
  }, 30_000);
});
