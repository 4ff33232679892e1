import { cacheCompletedRun } from '../src/endpoints/index.ts';
import { defineSubscriber } from './subscriber-definition.ts';

/** A completed run started by a published endpoint becomes that call's cached result. */
export const fillEndpointCacheSubscriber = defineSubscriber({
  name: 'endpoint-cache.fill',
  on: ['scrape.run.completed'],
  handle: (event) => cacheCompletedRun((event.data as { runId: string }).runId),
});
