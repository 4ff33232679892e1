import { defineSubscriber } from '../../events/subscriber.ts';
import { settleEndpointRun } from '../endpoint-health.ts';

/** An ended run a published endpoint started: its endpoint's health judged, and a healthy completed result cached for that call. */
export const endpointCacheFillSubscriber = defineSubscriber({
  name: 'endpoint-cache.fill',
  on: ['scrape.run.completed', 'scrape.run.failed'],
  handle: async (event) => void (await settleEndpointRun((event.data as { runId: string }).runId)),
});
