import { accountRouter } from './account/router.ts';
import { endpointsRouter } from './endpoints/router.ts';
import { leadsRouter } from './leads/router.ts';
import { scrapersRouter } from './scraping/router.ts';
import { router } from './trpc/init.ts';

/** The one place every procedure is registered; REST, GraphQL and tRPC are all served from it. */
export const appRouter = router({
  account: accountRouter,
  leads: leadsRouter,
  scrapers: scrapersRouter,
  endpoints: endpointsRouter,
});

export type AppRouter = typeof appRouter;
