import { defineSubscriber } from '../../events/subscriber.ts';
import { cacheCompletedRun } from '../endpoint-cache.ts';

/** A completed run started by a published endpoint becomes that call's cached result. */
export const endpointCacheFillSubscriber = defineSubscriber({
  name: 'endpoint-cache.fill',
  on: ['scrape.run.completed'],
  handle: (event) => cacheCompletedRun((event.data as { runId: string }).runId),
});
