import { artifactDownloadRoute } from '../agents/artifacts/artifact-download.route.ts';
import type { DomainRoute } from '../web/domain-route.ts';
import { leadExportRoute } from '../leads/export-leads.route.ts';
import { oauthRoute } from '../oauth/oauth.route.ts';
import { outreachLinksRoute } from '../outreach/sending/public-pages.ts';
import { suppressionsCsvRoute } from '../outreach/suppressions/suppressions-csv.route.ts';

/**
 * The HTTP routes domains serve themselves, beside their procedures (src/http/router.ts), asked in this order before
 * the REST bridge: downloads a JSON procedure cannot stream, the pages mail links open, the OAuth server.
 */
export const domainRoutes: DomainRoute[] = [outreachLinksRoute, artifactDownloadRoute, oauthRoute, suppressionsCsvRoute, leadExportRoute];
