import { v5 as nameBasedId } from 'uuid';
import { dispatchEventJob } from '../../jobs/dispatch-event.ts';
import { enqueue } from '../../jobs/queue.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { eventData, type EventData, type EventType } from './event-types.ts';
import { nowMs } from '../clock.ts';
import { Event, EventOutbox, type EventDoc } from './event.model.ts';

/** The namespace of event ids (UUIDv5 of the event's type and subject). */
const eventIdNamespace = '6f1d3c2a-8b4e-4f7a-9c1d-2e5b7a9d0c3f';

export interface StoredEvent<T extends EventType = EventType> {
  id: string;
  workspaceId: string;
  type: T;
  data: EventData<T>;
  createdAt: Date;
}

const ignoreDuplicate = (error: unknown) => {
  if (!isDuplicateKey(error)) throw error;
};

/**
 * Records that something happened and hands it to the subscribers, as jobs.
 * `subject` names what the event is about (a run id): the same type and
 * subject always give the same event id, so an emitter that runs again
 * after a crash finds the event it stored and stores no second one. The
 * event and its outbox marker are stored before anything is handed on; the
 * marker goes once the subscribers' jobs are queued, and the sweep
 * (redispatchStaleEvents) hands on any event whose marker stayed, so no
 * stored event is lost. Subscribers are written to be safe to run twice.
 */
export async function emitEvent<T extends EventType>(workspaceId: string, type: T, data: EventData<T>, subject: string): Promise<string> {
  const id = nameBasedId(`${type}\n${subject}`, eventIdNamespace);
  await Event.create({ _id: id, workspaceId, type, data: eventData[type].parse(data) }).catch(ignoreDuplicate);
  await EventOutbox.create({ _id: id, storedAt: new Date(nowMs()) }).catch(ignoreDuplicate);
  await enqueue(dispatchEventJob, { eventId: id });
  return id;
}

/** The event has been handed to every subscriber: its outbox marker goes. */
export async function markDispatched(eventId: string): Promise<void> {
  await EventOutbox.deleteOne({ _id: eventId });
}

/** Hands on again every event whose marker is older than `olderThanMs` (its dispatch was lost); returns how many. */
export async function redispatchStaleEvents(olderThanMs: number): Promise<number> {
  const stale = await EventOutbox.find({ storedAt: { $lt: new Date(nowMs() - olderThanMs) } }, { _id: 1 }).lean<Array<{ _id: string }>>();
  for (const { _id } of stale) await enqueue(dispatchEventJob, { eventId: _id });
  return stale.length;
}

export async function getEvent(id: string): Promise<StoredEvent | null> {
  const doc = await Event.findById(id).lean<EventDoc>();
  return doc && { id: doc._id, workspaceId: doc.workspaceId, type: doc.type as EventType, data: doc.data, createdAt: doc.createdAt };
}
