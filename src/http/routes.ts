import { artifactDownloadRoute } from '../agents/index.ts';
import type { DomainRoute } from '../web/domain-route.ts';
import { leadExportRoute, leadImportsRoute } from '../leads/index.ts';
import { oauthRoute } from '../oauth/index.ts';
import { runDataFileRoute } from '../scraping/index.ts';
import { outreachLinksRoute, suppressionsCsvRoute } from '../outreach/index.ts';

/**
 * The HTTP routes domains serve themselves, beside their procedures (src/http/router.ts), asked in this order before
 * the REST bridge: downloads a JSON procedure cannot stream, the pages mail links open, the OAuth server.
 */
export const domainRoutes: DomainRoute[] = [
  outreachLinksRoute,
  artifactDownloadRoute,
  oauthRoute,
  suppressionsCsvRoute,
  leadExportRoute,
  leadImportsRoute,
  runDataFileRoute,
];
