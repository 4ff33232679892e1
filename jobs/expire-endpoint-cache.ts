import { deleteExpiredCacheEntries } from '../src/endpoints/index.ts';
import { expireEndpointCacheJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/** FerretDB has no TTL indexes: expired published-endpoint cache entries are deleted here. */
export const expireEndpointCacheHandler = handleJob(expireEndpointCacheJob, {
  handle: async () => {
    await deleteExpiredCacheEntries();
  },
});
