import { v5 as nameBasedId } from 'uuid';
import { groupedInsert, insertNew } from '../db/insert-new.ts';
import { releaseTurn, takeTurn } from '../db/turns.ts';
import { eventData, type EventData, type EventType } from './event-types.ts';
import { Event, EventDispatchTurn, type EventDoc } from './event.model.ts';
import { sameTextAnyCase } from '../db/exact-text.ts';

/** The namespace of event ids (UUIDv5 of the event's type and subject). */
const eventIdNamespace = '6f1d3c2a-8b4e-4f7a-9c1d-2e5b7a9d0c3f';

export interface StoredEvent<T extends EventType = EventType> {
  id: string;
  workspaceId: string;
  type: T;
  data: EventData<T>;
  createdAt: Date;
}

const storedListeners = new Set<() => void>();

/** Calls `listener` whenever this process stores an event (the worker's dispatcher wakes at once instead of at its next look). */
export function onEventStored(listener: () => void): () => void {
  storedListeners.add(listener);
  return () => storedListeners.delete(listener);
}

/**
 * Events emitted in this process are stored one insert at a time: those emitted while one is under way wait for it,
 * then go together (db/insert-new.ts).
 */
const insertEvent = groupedInsert<Omit<EventDoc, 'tries'>>(Event);

/**
 * Records that something happened, for the subscribers. `subject` names
 * what the event is about (a run id): the same type and subject always give
 * the same event id, so an emitter that runs again after a crash finds the
 * event it stored and stores no second one. The event is stored here, due; the
 * worker's dispatcher hands it to each
 * subscriber and then clears its `dueAt`, so no stored event is lost.
 * Subscribers are written to be safe to run twice.
 */
export async function emitEvent<T extends EventType>(workspaceId: string, type: T, data: EventData<T>, subject: string): Promise<string> {
  const id = nameBasedId(`${type}\n${subject}`, eventIdNamespace);
  const stored = { workspaceId, type, data: eventData[type].parse(data) };
  // One write: the event, due. An emitter that runs again finds it stored and makes it due again. The outbox's
  // times are wall-clock, shared by every process whatever clock a test sets in one.
  const dueAt = new Date();
  if (!(await insertEvent({ _id: id, ...stored, dueAt, createdAt: dueAt }))) await Event.updateOne({ _id: id }, { $set: { dueAt } });
  for (const listener of storedListeners) listener();
  return id;
}

/** An event to emit with others (emitEvents): as emitEvent's arguments. */
export interface EventToEmit<T extends EventType = EventType> {
  workspaceId: string;
  type: T;
  data: EventData<T>;
  subject: string;
}

/**
 * Many events at once, as emitEvent stores each (the same ids), with one insert for all: for a flow that makes an
 * event per item of a batch (the sending engine's `outreach.email.sent`, a chunk at a time). Those stored before are
 * made due again, with one update.
 */
export async function emitEvents(events: EventToEmit[]): Promise<void> {
  if (!events.length) return;
  const dueAt = new Date();
  const docs = events.map(({ workspaceId, type, data, subject }) => ({
    _id: nameBasedId(`${type}\n${subject}`, eventIdNamespace),
    workspaceId,
    type,
    data: eventData[type].parse(data),
    dueAt,
    createdAt: dueAt,
  }));
  const stored = await insertNew(Event, docs);
  const again = docs.filter((doc) => !stored.has(doc._id)).map((doc) => doc._id);
  if (again.length) await Event.updateMany({ _id: { $in: again } }, { $set: { dueAt } });
  for (const listener of storedListeners) listener();
}

const toStored = (doc: EventDoc): StoredEvent => ({
  id: doc._id,
  workspaceId: doc.workspaceId,
  type: doc.type as EventType,
  data: doc.data,
  createdAt: doc.createdAt,
});

/** Events due to be handed on, oldest due first, leaving out those already being handed on here. */
export async function dueEvents(limit: number, inFlight: Iterable<string>): Promise<Array<StoredEvent & { tries: number }>> {
  const docs = await Event.find({ dueAt: { $lte: new Date() }, _id: { $nin: [...inFlight] } })
    .sort({ dueAt: 1 })
    .limit(limit)
    .lean<EventDoc[]>();
  return docs.map((doc) => ({ ...toStored(doc), tries: doc.tries ?? 0 }));
}

/** These events have been handed to every subscriber: they leave the outbox. */
export async function markDispatched(eventIds: string[]): Promise<void> {
  if (eventIds.length) await Event.updateMany({ _id: { $in: eventIds } }, { $unset: { dueAt: 1, tries: 1 } });
}

/** A subscriber failed on the event: it is handed on again after `delayMs`. */
export async function dispatchLater(eventId: string, delayMs: number): Promise<void> {
  await Event.updateOne({ _id: eventId }, { $set: { dueAt: new Date(Date.now() + delayMs) }, $inc: { tries: 1 } });
}

/** Takes (or keeps) the turn to drain the outbox for `turnMs`: true when `holder` has it. */
export const holdDispatchTurn = (holder: string, turnMs: number) => takeTurn(EventDispatchTurn, 'outbox', holder, turnMs);

export const releaseDispatchTurn = (holder: string) => releaseTurn(EventDispatchTurn, 'outbox', holder);

export async function getEvent(id: string): Promise<StoredEvent | null> {
  const doc = await Event.findById(id).lean<EventDoc>();
  return doc && toStored(doc);
}

/**
 * Deletes the workspace's events whose data names an address (an erasure: a reply's or bounce's `from_email`, a lead's
 * or a message's address), those still waiting in the outbox too: they are never handed on, and a webhook delivery
 * of one already handed on finds no event to send (attemptDelivery). Answers how many.
 */
export async function eraseEventsNaming(workspaceId: string, address: string): Promise<number> {
  const same = sameTextAnyCase(address);
  const { deletedCount } = await Event.deleteMany({
    workspaceId,
    $or: ['data.from_email', 'data.email', 'data.to', 'data.lead.email'].map((path) => ({ [path]: same })),
  });
  return deletedCount;
}
