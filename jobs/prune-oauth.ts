import { now } from '../src/clock.ts';
import { pruneExpiredOAuthRecords } from '../src/oauth/index.ts';
import { pruneSignInFailures } from '../src/sign-in/index.ts';
import { pruneOAuthJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/** Expired OAuth codes, tokens, sessions and interactions, and sign-in failures past their window, go (no TTL indexes on FerretDB). */
export const pruneOAuthHandler = handleJob(pruneOAuthJob, {
  handle: async () => {
    await pruneExpiredOAuthRecords(now());
    await pruneSignInFailures();
  },
});
