import { z } from 'zod';
import type { EventType } from '../src/events/event-types.ts';
import { getEvent, type StoredEvent } from '../src/events/events.service.ts';
import { defineJob, type JobDefinition } from './job-definition.ts';

export interface Subscriber {
  /** The event types it reacts to. */
  on: readonly EventType[];
  /** The job that runs it for one event. */
  job: JobDefinition<typeof eventPayload>;
}

const eventPayload = z.object({ eventId: z.uuid() });

/**
 * A reaction to domain events, run as its own job per event (so it retries
 * on its own). It must be safe to run twice for the same event: events are
 * handed on at least once.
 */
export function defineSubscriber(definition: {
  name: string;
  on: readonly EventType[];
  retries: number;
  lockLifetimeMs?: () => number;
  handle(event: StoredEvent): Promise<void>;
}): Subscriber {
  return {
    on: definition.on,
    job: defineJob({
      name: `event.${definition.name}`,
      payload: eventPayload,
      retries: definition.retries,
      ...(definition.lockLifetimeMs && { lockLifetimeMs: definition.lockLifetimeMs }),
      handle: async ({ eventId }) => {
        const event = await getEvent(eventId);
        if (event) await definition.handle(event);
      },
    }),
  };
}
