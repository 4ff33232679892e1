import { router } from '../trpc/init.ts';
import { campaignsRouter } from './campaigns/router.ts';
import { inboxesRouter } from './inboxes/router.ts';
import { repliesRouter } from './replies/router.ts';
import { deliveryRouter } from './delivery/router.ts';
import { sequencesRouter } from './sequences/router.ts';
import { statsRouter } from './stats/router.ts';
import { suppressionsRouter } from './suppressions/router.ts';

/** Outreach, one sub-router per sub-resource (README "Layout"). */
export const outreachRouter = router({
  inboxes: inboxesRouter,
  sequences: sequencesRouter,
  campaigns: campaignsRouter,
  suppressions: suppressionsRouter,
  sending: deliveryRouter,
  replies: repliesRouter,
  stats: statsRouter,
});
