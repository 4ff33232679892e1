import { accountRouter } from './account/router.ts';
import { brandsRouter } from './brands/router.ts';
import { endpointsRouter } from './endpoints/router.ts';
import { leadsRouter } from './leads/router.ts';
import { outreachRouter } from './outreach/router.ts';
import { scrapersRouter } from './scraping/router.ts';
import { recordErrorStyles } from './trpc/error-styles.ts';
import { router } from './trpc/init.ts';
import { procedureDefs } from './trpc/procedure-defs.ts';

/** The one place every procedure is registered; REST, GraphQL and tRPC are all served from it. */
export const appRouter = router({
  account: accountRouter,
  brands: brandsRouter,
  leads: leadsRouter,
  outreach: outreachRouter,
  scrapers: scrapersRouter,
  endpoints: endpointsRouter,
});

export type AppRouter = typeof appRouter;

recordErrorStyles(procedureDefs(appRouter));
