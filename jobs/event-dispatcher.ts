import { randomUUID } from 'node:crypto';
import {
  dispatchLater,
  dueEvents,
  holdDispatchTurn,
  markDispatched,
  onEventStored,
  releaseDispatchTurn,
  type StoredEvent,
} from '../src/events/events.service.ts';
import { log, logFault, outsideRequest } from '../src/logger.ts';
import type { Subscriber } from './subscriber-definition.ts';

/** How long an idle dispatcher waits before looking at the outbox again (an event stored in this process wakes it at once). */
const idleMs = 200;
/** The wait before handing an event on again after a subscriber failed on it, by failures so far; then it is given up. */
const retryDelaysMs = [1_000, 5_000, 30_000, 120_000, 600_000, 3_600_000];

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Drains the event outbox: hands each due event to every subscriber of its
 * type, `concurrency` events at a time, and removes the markers of those
 * handed on, a batch at a time. One dispatcher drains at a time on any
 * number of workers (a turn held in the store); the others wait for it to
 * lapse. Replaces a job per event and per subscriber: the outbox is the queue.
 */
export function startEventDispatcher(options: {
  concurrency: number;
  subscribers: readonly Subscriber[];
  /** How long the turn lasts unless renewed: a dead worker's hand-ons (its webhook attempts) pass to another after this. */
  turnMs: number;
}): { stop: (graceMs: number) => Promise<void> } {
  const holder = randomUUID();
  const inFlight = new Set<string>();
  const queued: Array<StoredEvent & { tries: number }> = [];
  const handedOn: string[] = [];
  let running = 0;
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

  async function handOn(event: StoredEvent & { tries: number }) {
    try {
      for (const subscriber of options.subscribers) if (subscriber.on.includes(event.type)) await subscriber.handle(event);
      handedOn.push(event.id);
    } catch (error) {
      if (event.tries >= retryDelaysMs.length) {
        log.error('event given up by its subscribers', {
          eventId: event.id,
          type: event.type,
          tries: event.tries + 1,
          error: messageOf(error),
        });
        handedOn.push(event.id);
      } else {
        log.warn('event handed on again later: a subscriber failed', { eventId: event.id, type: event.type, error: messageOf(error) });
        await dispatchLater(event.id, retryDelaysMs[event.tries]!).catch(logFault);
        inFlight.delete(event.id);
      }
    } finally {
      running--;
      startQueued();
      nudge();
    }
  }

  function startQueued() {
    while (!stopping && running < options.concurrency && queued.length) {
      running++;
      const event = queued.shift()!;
      void outsideRequest(() => handOn(event));
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
        // Keep one round of events queued behind those running, read in one go.
        if (queued.length < options.concurrency) {
          const due = await dueEvents(2 * options.concurrency - queued.length, inFlight);
          for (const event of due) inFlight.add(event.id);
          queued.push(...due);
          startQueued();
          if (due.length && running < options.concurrency) continue;
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
      queued.length = 0;
      for (const deadline = Date.now() + graceMs; running > 0 && Date.now() < deadline;) await new Promise((done) => setTimeout(done, 20));
      stopListening();
      // Events still running keep their markers: the next dispatcher hands them on again.
      await flush().catch(logFault);
      await releaseDispatchTurn(holder).catch(logFault);
    },
  };
}
