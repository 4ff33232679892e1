import { z } from 'zod';
import { deleteExpiredCacheEntries } from '../src/endpoints/endpoint-cache.ts';
import { defineJob } from './job-definition.ts';

/** FerretDB has no TTL indexes: expired published-endpoint cache entries are deleted here. */
export const expireEndpointCacheJob = defineJob({
  name: 'endpoint-cache.expire',
  payload: z.object({}),
  retries: 0,
  every: '5 minutes',
  handle: async () => {
    await deleteExpiredCacheEntries();
  },
});
