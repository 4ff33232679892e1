import type { EventType } from './event-types.ts';
import type { StoredEvent } from './events.service.ts';

/**
 * A reaction to domain events, called by the event dispatcher for each
 * event of the types it is `on`. It must be safe to run twice for the same
 * event: events are handed on at least once, and again after any
 * subscriber of the event failed.
 */
export interface Subscriber {
  name: string;
  on: readonly EventType[];
  handle(event: StoredEvent): Promise<void>;
  /**
   * Many events at once, with a few writes for all of them (a busy outbox hands on hundreds a second). When it
   * fails, the dispatcher hands each event to `handle` alone, so only the event at fault is tried again later.
   */
  handleMany?(events: StoredEvent[]): Promise<void>;
}

export const defineSubscriber = (subscriber: Subscriber) => subscriber;
