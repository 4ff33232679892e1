import { z } from 'zod';
import { now } from '../src/clock.ts';
import { pruneExpiredOAuthRecords } from '../src/oauth/oauth-adapter.ts';
import { pruneSignInFailures } from '../src/sign-in/sign-in.service.ts';
import { defineJob } from './job-definition.ts';

/** Expired OAuth codes, tokens, sessions and interactions, and sign-in failures past their window, go (no TTL indexes on FerretDB). */
export const pruneOAuthJob = defineJob({
  name: 'oauth.prune',
  payload: z.object({}),
  retries: 0,
  every: '1 hour',
  handle: async () => {
    await pruneExpiredOAuthRecords(now());
    await pruneSignInFailures();
  },
});
