import { artifactDownloadRoute } from '../agents/index.ts';
import type { DomainRoute, NodeRoute } from '../web/domain-route.ts';
import { leadExportRoute, leadImportsRoute } from '../leads/index.ts';
import { oauthRoute } from '../oauth/index.ts';
import { runDataFileRoute } from '../scraping/index.ts';
import { outreachLinksRoute, suppressionsCsvRoute } from '../outreach/index.ts';

/**
 * The HTTP routes domains serve themselves, beside their procedures (src/http/router.ts), asked in this order before
 * the REST bridge: downloads a JSON procedure cannot stream, the OAuth server.
 */
export const domainRoutes: DomainRoute[] = [
  artifactDownloadRoute,
  oauthRoute,
  suppressionsCsvRoute,
  leadExportRoute,
  leadImportsRoute,
  runDataFileRoute,
];

/** The routes served on Node's request and response, asked by the front door first: the pages mail links open. */
export const nodeRoutes: NodeRoute[] = [outreachLinksRoute];
