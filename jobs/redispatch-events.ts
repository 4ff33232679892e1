import { z } from 'zod';
import { redispatchStaleEvents } from '../src/events/events.service.ts';
import { log } from '../src/logger.ts';
import { defineJob } from './job-definition.ts';

/** The outbox sweep: an event stored but never handed on (its dispatch job lost) is handed on again. */
export const redispatchEventsJob = defineJob({
  name: 'events.redispatch',
  payload: z.object({}),
  retries: 0,
  every: '1 minute',
  async handle() {
    const handedOn = await redispatchStaleEvents(60_000);
    if (handedOn) log.warn('events handed on again', { count: handedOn });
  },
});
