import { normalizePath } from 'trpc-to-openapi';
import { exportLeadsInput } from '../../schema/leads.ts';
import { AppError } from '../errors/app-error.ts';
import { toErrorResponse } from '../errors/error-response.ts';
import { noteRequest } from '../logger.ts';
import type { Meta } from '../trpc/init.ts';
import { jsonAnswer } from '../web/answers.ts';
import { checkedQuery, createCsvRoute, type CsvRouteOptions } from '../web/csv-download.ts';
import { defineDomainRoute } from '../web/domain-route.ts';
import { leadExport } from './lead-export.service.ts';
import { customFromQuery } from './lead-filter.ts';

/**
 * GET /api/leads/export: every lead the list's filters match, as a CSV
 * download streamed from a cursor (no page cap). A route of its own beside
 * the REST bridge (see csv-download.ts); /openapi.json documents it
 * (openapi.ts) with the access below.
 */
export const leadExportPath = '/api/leads/export';
export const leadExportAccess = { permission: 'read', errors: ['not_found'] } as const satisfies Partial<Meta>;

export function createLeadExportRoute(options: CsvRouteOptions) {
  const serveCsv = createCsvRoute(leadExportPath, leadExportAccess, options, async (principal, request) => ({
    name: 'leads',
    ...(await leadExport(principal, checkedQuery(exportLeadsInput, request, customFromQuery))),
  }));
  return async function serveLeadExport(request: Request): Promise<Response> {
    if (request.method === 'GET') return serveCsv(request);
    noteRequest({ route: leadExportPath });
    const { status, body } = toErrorResponse(new AppError('method_not_allowed', `${request.method} is not allowed on ${leadExportPath}`));
    return jsonAnswer(status, body, { Allow: 'GET' });
  };
}

export const leadExportRoute = defineDomainRoute({
  matches: (_request, url) => normalizePath(url.pathname) === leadExportPath,
  create: createLeadExportRoute,
});
