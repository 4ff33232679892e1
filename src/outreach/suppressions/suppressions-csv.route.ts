import { normalizePath } from 'trpc-to-openapi';
import { listSuppressionsInput, suppressionCsvColumns } from '../../../schema/outreach/suppressions.ts';
import { checkedQuery, createCsvRoute, type CsvRouteOptions } from '../../web/csv-download.ts';
import { defineDomainRoute } from '../../web/domain-route.ts';
import { listSuppressionsAccess } from './list-suppressions.ts';
import { suppressionRows } from './suppressions.service.ts';

/**
 * GET /api/outreach/suppressions?format=csv: the whole do-not-contact list
 * as a CSV download, a route of its own beside the REST bridge
 * (csv-download.ts). It is still the list operation: the same path and
 * parameters (checked by the list's input schema), the same admission (the
 * list's permission), and /openapi.json lists `text/csv` as the operation's
 * other 200 form (restMediaTypes).
 */
export const suppressionsPath = '/api/outreach/suppressions';

/** The last `format` wins, as the bridge reads repeated query parameters. */
export const isSuppressionsCsvRequest = (request: Request, url: URL) =>
  request.method === 'GET' && normalizePath(url.pathname) === suppressionsPath && url.searchParams.getAll('format').at(-1) === 'csv';

export function createSuppressionsCsvRoute(options: CsvRouteOptions) {
  return createCsvRoute(suppressionsPath, listSuppressionsAccess, options, async (principal, request) => ({
    name: 'suppressions',
    columns: suppressionCsvColumns,
    rows: suppressionRows(principal.workspaceId, checkedQuery(listSuppressionsInput, request).q || undefined),
  }));
}

export const suppressionsCsvRoute = defineDomainRoute({ matches: isSuppressionsCsvRequest, create: createSuppressionsCsvRoute });
