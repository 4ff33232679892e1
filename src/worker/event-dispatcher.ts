import { randomUUID } from 'node:crypto';
import {
  dispatchLater,
  dueEvents,
  holdDispatchTurn,
  markDispatched,
  onEventStored,
  releaseDispatchTurn,
  type StoredEvent,
} from '../events/events.service.ts';
import type { Subscriber } from '../events/subscriber.ts';
import { log, logFault, outsideRequest } from '../logger.ts';

/** How long an idle dispatcher waits before looking at the outbox again (an event stored in this process wakes it at once). */
const idleMs = 200;
/** The wait before handing an event on again after a subscriber failed on it, by failures so far; then it is given up. */
const retryDelaysMs = [1_000, 5_000, 30_000, 120_000, 600_000, 3_600_000];

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Batches handed on at once: the reads and writes of one overlap the outbound calls (webhook POSTs) of the other. */
const batchesAtOnce = 2;

/**
 * Hands a batch of events to every subscriber of their types: to `handleMany` together (each event alone again if
 * that failed, so only the event at fault is tried again), else to `handle` one by one. Answers the events some
 * subscriber failed on, with the error.
 */
async function handToSubscribers(events: StoredEvent[], subscribers: readonly Subscriber[]): Promise<Map<string, unknown>> {
  const failures = new Map<string, unknown>();
  await Promise.all(
    subscribers.map(async (subscriber) => {
      const theirs = events.filter((event) => subscriber.on.includes(event.type));
      if (!theirs.length) return;
      if (subscriber.handleMany && theirs.length > 1) {
        try {
          return await subscriber.handleMany(theirs);
        } catch (error) {
          log.warn('a subscriber failed on a batch of events: each is handed to it alone', {
            subscriber: subscriber.name,
            events: theirs.length,
            error: messageOf(error),
          });
        }
      }
      await Promise.all(theirs.map((event) => subscriber.handle(event).catch((error: unknown) => void failures.set(event.id, error))));
    }),
  );
  return failures;
}

/**
 * Drains the event outbox: reads the due events a batch at a time (up to
 * `concurrency` in hand, in two batches under way at once), hands each batch
 * to the subscribers of its events' types, and removes the markers of those
 * handed on, a batch at a time. A quiet outbox makes small batches (an event
 * is handed on as soon as it is stored); a busy one, larger ones. One
 * dispatcher drains at a time on any number of workers (a turn held in the
 * store); the others wait for it to lapse. Replaces a job per event and per
 * subscriber: the outbox is the queue.
 */
export function startEventDispatcher(options: {
  /** Events in hand at once, at most. */
  concurrency: number;
  subscribers: readonly Subscriber[];
  /** How long the turn lasts unless renewed: a dead worker's hand-ons (its webhook attempts) pass to another after this. */
  turnMs: number;
}): { stop: (graceMs: number) => Promise<void> } {
  const holder = randomUUID();
  const batchLimit = Math.max(1, Math.ceil(options.concurrency / batchesAtOnce));
  const inFlight = new Set<string>();
  const handedOn: string[] = [];
  let batchesRunning = 0;
  let stopping = false;
  let turnRenewAt = 0;
  let woken = false;
  let wake = () => {};
  const nudge = () => {
    woken = true;
    wake();
  };
  const pause = (ms: number) =>
    new Promise<void>((resume) => {
      if (woken || stopping) return resume();
      const timer = setTimeout(resume, ms);
      wake = () => {
        clearTimeout(timer);
        resume();
      };
    }).finally(() => {
      woken = false;
      wake = () => {};
    });
  const stopListening = onEventStored(nudge);

  /** A subscriber failed on the event: handed on again later, or given up after the last retry. */
  async function failed(event: StoredEvent & { tries: number }, error: unknown) {
    if (event.tries >= retryDelaysMs.length) {
      log.error('event given up by its subscribers', {
        eventId: event.id,
        type: event.type,
        tries: event.tries + 1,
        error: messageOf(error),
      });
      return void handedOn.push(event.id);
    }
    log.warn('event handed on again later: a subscriber failed', { eventId: event.id, type: event.type, error: messageOf(error) });
    await dispatchLater(event.id, retryDelaysMs[event.tries]!).catch(logFault);
    inFlight.delete(event.id);
  }

  async function handOn(batch: Array<StoredEvent & { tries: number }>) {
    try {
      const failures = await handToSubscribers(batch, options.subscribers);
      for (const event of batch) {
        if (failures.has(event.id)) await failed(event, failures.get(event.id));
        else handedOn.push(event.id);
      }
    } finally {
      batchesRunning--;
      nudge();
    }
  }

  /** Removes the markers of events handed on; until then they stay in flight, so they are not read again. */
  async function flush() {
    const ids = handedOn.splice(0);
    await markDispatched(ids);
    for (const id of ids) inFlight.delete(id);
  }

  async function holdsTurn(): Promise<boolean> {
    if (Date.now() < turnRenewAt) return true;
    if (!(await holdDispatchTurn(holder, options.turnMs))) return false;
    turnRenewAt = Date.now() + options.turnMs / 3;
    return true;
  }

  const loop = (async () => {
    while (!stopping) {
      try {
        if (handedOn.length) await flush();
        if (!(await holdsTurn())) {
          await pause(options.turnMs / 10);
          continue;
        }
        const room = Math.min(batchLimit, options.concurrency - inFlight.size);
        if (batchesRunning < batchesAtOnce && room > 0) {
          const due = await dueEvents(room, inFlight);
          if (due.length) {
            for (const event of due) inFlight.add(event.id);
            batchesRunning++;
            void outsideRequest(() => handOn(due));
            continue;
          }
        }
        await pause(idleMs);
      } catch (error) {
        logFault(error);
        await pause(1_000);
      }
    }
  })();

  return {
    stop: async (graceMs) => {
      stopping = true;
      nudge();
      await loop;
      for (const deadline = Date.now() + graceMs; batchesRunning > 0 && Date.now() < deadline;)
        await new Promise((done) => setTimeout(done, 20));
      stopListening();
      // Events still being handed on keep their markers: the next dispatcher hands them on again.
      await flush().catch(logFault);
      await releaseDispatchTurn(holder).catch(logFault);
    },
  };
}
