import { accountRouter } from '../account/router.ts';
import { agentsRouter } from '../agents/router.ts';
import { brandsRouter } from '../brands/router.ts';
import { endpointsRouter } from '../endpoints/router.ts';
import { foldersRouter } from '../folders/router.ts';
import { keysRouter } from '../keys/router.ts';
import { leadsRouter } from '../leads/router.ts';
import { membersRouter } from '../members/router.ts';
import { outreachRouter } from '../outreach/router.ts';
import { privacyRouter } from '../privacy/router.ts';
import { schedulesRouter } from '../schedules/router.ts';
import { scrapersRouter } from '../scraping/router.ts';
import { skillsRouter } from '../skills/router.ts';
import { router } from '../trpc/init.ts';
import { usageRouter } from '../usage/router.ts';
import { validationRouter } from '../validation/router.ts';
import { webhooksRouter } from '../webhooks/router.ts';

/** The one place every procedure is registered; REST, GraphQL and tRPC are all served from it. */
export const appRouter = router({
  account: accountRouter,
  brands: brandsRouter,
  leads: leadsRouter,
  validation: validationRouter,
  outreach: outreachRouter,
  agents: agentsRouter,
  skills: skillsRouter,
  webhooks: webhooksRouter,
  scrapers: scrapersRouter,
  schedules: schedulesRouter,
  folders: foldersRouter,
  endpoints: endpointsRouter,
  keys: keysRouter,
  members: membersRouter,
  privacy: privacyRouter,
  usage: usageRouter,
});

export type AppRouter = typeof appRouter;
