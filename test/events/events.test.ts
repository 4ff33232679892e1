import { setTimeout as sleep } from 'node:timers/promises';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subscriber } from '../../src/events/subscriber.ts';
import { startEventDispatcher } from '../../src/worker/event-dispatcher.ts';
import { subscribers } from '../../src/worker/subscribers.ts';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { webhookEventTypes } from '../../schema/webhooks.ts';
import { eventTypes } from '../../src/events/event-types.ts';
import { emitEvent, getEvent, type StoredEvent } from '../../src/events/events.service.ts';
import { freshDatabaseUri } from '../support/database.ts';

const collection = (name: string) => mongoose.connection.db!.collection(name);

beforeAll(() => connectDatabase(freshDatabaseUri()));
afterAll(() => disconnectDatabase());

const ended = {
  runId: '0b6f3d4e-1c2a-4b5d-8e9f-0a1b2c3d4e5f',
  scraperId: '1c7a4e5f-2d3b-4c6e-9f0a-1b2c3d4e5f60',
  url: 'http://127.0.0.1/catalogue',
  pages: 3,
  creditsCharged: 3,
  error: null,
  errorCode: null,
};

/** A subscriber that records each event it is handed, failing the first `failures` times. */
function recorder(failures = 0): Subscriber & { seen: StoredEvent[] } {
  const seen: StoredEvent[] = [];
  let failed = 0;
  return {
    name: 'recorder',
    on: ['scrape.run.completed'],
    seen,
    handle: async (event) => {
      seen.push(event);
      if (failed++ < failures) throw new Error('the subscriber is down');
    },
  };
}

async function until(check: () => boolean | Promise<boolean>, ms = 10_000) {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(20)) if (await check()) return;
  throw new Error('timed out');
}

const outboxCount = () => collection('events').countDocuments({ dueAt: { $exists: true } });

describe('domain events', () => {
  it('stores an event once per type and subject, under a stable id, due to be handed on', async () => {
    const first = await emitEvent('ws-1', 'scrape.run.completed', ended, ended.runId);
    const again = await emitEvent('ws-1', 'scrape.run.completed', ended, ended.runId);
    expect(again).toBe(first);
    expect(await collection('events').countDocuments({ _id: first as never })).toBe(1);
    expect(await getEvent(first)).toEqual({
      id: first,
      workspaceId: 'ws-1',
      type: 'scrape.run.completed',
      data: ended,
      createdAt: expect.any(Date),
    });
    expect((await collection('events').findOne({ _id: first as never }))!.dueAt).toBeInstanceOf(Date);

    const failed = await emitEvent('ws-1', 'scrape.run.failed', { ...ended, error: 'no page', errorCode: 'fetch_failed' }, ended.runId);
    expect(failed).not.toBe(first);
  });

  it('hands every stored event to the subscribers of its type once, and takes it out of the outbox', async () => {
    const subscriber = recorder();
    const dispatcher = startEventDispatcher({ concurrency: 3, subscribers: [subscriber], turnMs: 5_000 });
    const ids = await Promise.all(
      Array.from({ length: 25 }, (_, n) => emitEvent('ws-2', 'scrape.run.completed', { ...ended, pages: n }, `run-${n}`)),
    );
    await until(async () => (await outboxCount()) === 0);
    await dispatcher.stop(1_000);
    // The first test's events too: stored before any dispatcher ran, handed on by this one.
    const handed = subscriber.seen.map((event) => event.id);
    expect(handed).toEqual(expect.arrayContaining(ids));
    expect(new Set(handed).size).toBe(handed.length);
    expect(handed).toHaveLength(ids.length + 1);
  });

  it('keeps an event whose subscriber failed, and hands it on again later', async () => {
    const subscriber = recorder(1);
    const dispatcher = startEventDispatcher({ concurrency: 2, subscribers: [subscriber], turnMs: 5_000 });
    const id = await emitEvent('ws-3', 'scrape.run.completed', ended, 'flaky-run');
    await until(async () => (await collection('events').findOne({ _id: id as never }))?.tries === 1);
    const marker = await collection('events').findOne({ _id: id as never });
    expect(marker!.dueAt.getTime()).toBeGreaterThan(Date.now());
    await until(async () => (await outboxCount()) === 0);
    await dispatcher.stop(1_000);
    expect(subscriber.seen.map((event) => event.id)).toEqual([id, id]);
  });

  it('drains the outbox from one dispatcher at a time when several workers run', async () => {
    const subscriber = recorder();
    const ids = await Promise.all(
      Array.from({ length: 40 }, (_, n) => emitEvent('ws-4', 'scrape.run.completed', { ...ended, pages: n }, `shared-${n}`)),
    );
    const dispatchers = [1, 2, 3].map(() => startEventDispatcher({ concurrency: 4, subscribers: [subscriber], turnMs: 5_000 }));
    await until(async () => (await outboxCount()) === 0);
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.stop(1_000)));
    expect(subscriber.seen.map((event) => event.id).sort()).toEqual([...ids].sort());
  });

  it('can be subscribed to by name, every type in the catalogue', () => {
    expect([...webhookEventTypes].sort()).toEqual([...eventTypes].sort());
  });

  it("refuses data that breaks its type's contract, storing nothing", async () => {
    const before = await collection('events').countDocuments();
    await expect(emitEvent('ws-1', 'scrape.run.completed', { ...ended, pages: 'three' } as never, 'another-run')).rejects.toThrow(/pages/);
    expect(await collection('events').countDocuments()).toBe(before);
  });

  it('hands a batch its subscriber failed on to it one event at a time, so only the event at fault is tried again', async () => {
    const poison = 'poisoned-run';
    const seen: Array<{ ids: string[]; many: boolean }> = [];
    const fails = (event: StoredEvent) => (event.data as { url: string }).url.endsWith(poison);
    const subscriber: Subscriber = {
      name: 'batcher',
      on: ['scrape.run.completed'],
      handleMany: async (events) => {
        seen.push({ ids: events.map((event) => event.id), many: true });
        if (events.some(fails)) throw new Error('one event of the batch is bad');
      },
      handle: async (event) => {
        seen.push({ ids: [event.id], many: false });
        if (fails(event)) throw new Error('this event is bad');
      },
    };
    const ids = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        emitEvent('ws-5', 'scrape.run.completed', { ...ended, url: `http://127.0.0.1/${n === 3 ? poison : n}` }, `batch-${n}`),
      ),
    );
    const dispatcher = startEventDispatcher({ concurrency: 20, subscribers: [subscriber], turnMs: 5_000 });
    await until(async () => (await collection('events').findOne({ _id: ids[3] as never }))?.tries === 1);
    await until(async () => (await collection('events').countDocuments({ _id: { $in: ids as never[] }, dueAt: { $exists: true } })) === 1);
    await dispatcher.stop(1_000);
    const handedAlone = seen.filter((call) => !call.many).flatMap((call) => call.ids);
    expect(seen.some((call) => call.many && call.ids.length > 1)).toBe(true);
    expect(handedAlone.filter((id) => id === ids[3])).toHaveLength(1);
    for (const id of ids.filter((_, n) => n !== 3)) expect(seen.filter((call) => call.ids.includes(id)).length).toBeLessThanOrEqual(2);
    expect((await collection('events').findOne({ _id: ids[3] as never }))!.dueAt.getTime()).toBeGreaterThan(Date.now());
  });

  it('stores events emitted at once each once, under their own ids', async () => {
    const subjects = Array.from({ length: 30 }, (_, n) => `together-${n % 20}`);
    const ids = await Promise.all(subjects.map((subject) => emitEvent('ws-6', 'scrape.run.completed', ended, subject)));
    expect(new Set(ids).size).toBe(20);
    expect(await collection('events').countDocuments({ workspaceId: 'ws-6' })).toBe(20);
    expect(await collection('events').countDocuments({ workspaceId: 'ws-6', dueAt: { $exists: true } })).toBe(20);
  });

  it('stores events emitted while an earlier one is being stored each once, the repeated ones under the same id', async () => {
    const first = emitEvent('ws-7', 'scrape.run.completed', ended, 'wave-0');
    await new Promise((turn) => setImmediate(turn)); // the first event's insert is under way
    const later = Array.from({ length: 25 }, (_, n) => emitEvent('ws-7', 'scrape.run.completed', ended, `wave-${n % 10}`));
    const ids = await Promise.all([first, ...later]);
    expect(new Set(ids).size).toBe(10);
    expect(ids.filter((id) => id === ids[0]).length).toBe(4);
    expect(await collection('events').countDocuments({ workspaceId: 'ws-7' })).toBe(10);
    expect(await collection('events').countDocuments({ workspaceId: 'ws-7', dueAt: { $exists: true } })).toBe(10);
  });

  it('has the webhook fan-out as the only subscriber of outreach.email.* (their emitters store them only for an endpoint)', () => {
    const takers = subscribers.filter((subscriber) => subscriber.on.some((type) => type.startsWith('outreach.email.')));
    expect(takers.map((subscriber) => subscriber.name)).toEqual(['webhooks.fan-out']);
  });
});
