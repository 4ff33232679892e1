import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mongoose from 'mongoose';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { dispatchEventJob } from '../../jobs/dispatch-event.ts';
import { fillEndpointCacheSubscriber } from '../../jobs/fill-endpoint-cache.ts';
import { emitEvent, getEvent, redispatchStaleEvents } from '../../src/events/events.service.ts';
import { useTestClock } from '../support/clock.ts';
import { freshDatabaseUri } from '../support/database.ts';

const clock = useTestClock();
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

describe('domain events', () => {
  it('stores an event once per type and subject, under a stable id, and hands it on each time it is emitted', async () => {
    const first = await emitEvent('ws-1', 'scrape.run.completed', ended, ended.runId);
    const again = await emitEvent('ws-1', 'scrape.run.completed', ended, ended.runId);
    expect(again).toBe(first);
    expect(await mongoose.connection.db!.collection('events').countDocuments({ _id: first as never })).toBe(1);
    expect(await getEvent(first)).toEqual({ id: first, workspaceId: 'ws-1', type: 'scrape.run.completed', data: ended, createdAt: expect.any(Date) });
    const dispatches = await mongoose.connection.db!.collection('agenda_jobs').countDocuments({ name: 'events.dispatch', 'data.eventId': first });
    expect(dispatches).toBe(2);

    const failed = await emitEvent('ws-1', 'scrape.run.failed', { ...ended, error: 'no page', errorCode: 'fetch_failed' }, ended.runId);
    expect(failed).not.toBe(first);
  });

  it('keeps an outbox marker until the event is handed on, and the sweep hands on what was left behind', async () => {
    const subject = '2c8b5e6f-3d4c-4e7f-a0b1-2c3d4e5f6a70';
    const id = await emitEvent('ws-2', 'scrape.run.completed', { ...ended, runId: subject }, subject);
    expect(await collection('event_outbox').countDocuments({ _id: id as never })).toBe(1);
    // Its dispatch job was lost: a minute later the sweep queues it again.
    expect(await redispatchStaleEvents(60_000)).toBe(0);
    clock.advance(61_000);
    const dispatchesBefore = await collection('agenda_jobs').countDocuments({ name: 'events.dispatch', 'data.eventId': id });
    // Every undispatched event of this file's database, ours included.
    expect(await redispatchStaleEvents(60_000)).toBe(await collection('event_outbox').countDocuments());
    expect(await collection('agenda_jobs').countDocuments({ name: 'events.dispatch', 'data.eventId': id })).toBe(dispatchesBefore + 1);

    await dispatchEventJob.handle({ eventId: id });
    expect(await collection('agenda_jobs').countDocuments({ name: fillEndpointCacheSubscriber.job.name, 'data.eventId': id })).toBe(1);
    expect(await collection('event_outbox').countDocuments({ _id: id as never })).toBe(0);
  });

  it('refuses data that breaks its type\'s contract, storing nothing', async () => {
    const before = await mongoose.connection.db!.collection('events').countDocuments();
    await expect(emitEvent('ws-1', 'scrape.run.completed', { ...ended, pages: 'three' } as never, 'another-run')).rejects.toThrow(/pages/);
    expect(await mongoose.connection.db!.collection('events').countDocuments()).toBe(before);
  });
});
