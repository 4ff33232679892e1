import { z } from 'zod';
import { getEvent, markDispatched } from '../src/events/events.service.ts';
import { defineJob } from './job-definition.ts';
import { enqueue } from './queue.ts';
import { subscribers } from './subscribers.ts';

/** Hands a stored event to each subscriber of its type, as that subscriber's own job. */
export const dispatchEventJob = defineJob({
  name: 'events.dispatch',
  payload: z.object({ eventId: z.uuid() }),
  retries: 5,
  handle: async ({ eventId }) => {
    const event = await getEvent(eventId);
    if (event) {
      for (const subscriber of subscribers.filter((s) => s.on.includes(event.type))) await enqueue(subscriber.job, { eventId });
    }
    await markDispatched(eventId);
  },
});
