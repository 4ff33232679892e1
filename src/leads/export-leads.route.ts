import type { IncomingMessage, ServerResponse } from 'node:http';
import { normalizePath } from 'trpc-to-openapi';
import { exportLeadsInput } from '../../schema/leads.ts';
import { AppError } from '../errors/app-error.ts';
import { toErrorResponse } from '../errors/error-response.ts';
import { checkedQuery, createCsvRoute, type CsvRouteOptions } from '../http/kit/csv-download.ts';
import { sendJson } from '../http/kit/send-json.ts';
import { noteRequest } from '../logger.ts';
import type { Meta } from '../trpc/init.ts';
import { leadExport } from './lead-export.service.ts';
import { defineDomainRoute } from '../http/kit/domain-route.ts';

/**
 * GET /api/leads/export: every lead the list's filters match, as a CSV
 * download streamed from a cursor (no page cap). A route of its own beside
 * the REST bridge (see csv-download.ts); /openapi.json documents it
 * (openapi.ts) with the access below.
 */
export const leadExportPath = '/api/leads/export';
export const leadExportAccess = { permission: 'read', errors: ['not_found'] } as const satisfies Partial<Meta>;

export const isLeadExportRequest = (req: IncomingMessage) =>
  normalizePath(new URL(req.url ?? '/', 'http://localhost').pathname) === leadExportPath;

export function createLeadExportRoute(options: CsvRouteOptions) {
  const serveCsv = createCsvRoute(leadExportPath, leadExportAccess, options, async (principal, req) => ({
    name: 'leads',
    ...(await leadExport(principal, checkedQuery(exportLeadsInput, req))),
  }));
  return async function serveLeadExport(req: IncomingMessage, res: ServerResponse) {
    if (req.method === 'GET') return serveCsv(req, res);
    noteRequest({ route: leadExportPath });
    res.setHeader('Allow', 'GET');
    const { status, body } = toErrorResponse(new AppError('method_not_allowed', `${req.method} is not allowed on ${leadExportPath}`));
    sendJson(res, status, body);
  };
}

export const leadExportRoute = defineDomainRoute({
  matches: (req) => isLeadExportRequest(req),
  create: (options) => {
    const serve = createLeadExportRoute(options);
    return (req, res) => serve(req, res);
  },
});
