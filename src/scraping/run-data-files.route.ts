import { normalizePath } from 'trpc-to-openapi';
import { scrapeDataInput } from '../../schema/scrape-runs.ts';
import { checkedQuery, createCsvRoute, type CsvRouteOptions } from '../web/csv-download.ts';
import { defineDomainRoute } from '../web/domain-route.ts';
import { scrapeDataAccess } from './get-scrape-data.ts';
import { runDataFile } from './run-data-files.service.ts';

/**
 * GET /api/{scraperId}/data/{runId}?format=csv|jsonl: a run's data as a
 * file, a route of its own beside the REST bridge (csv-download.ts) for the
 * same operation: same path and parameters, same admission and error style,
 * and /openapi.json lists `text/csv` and `application/jsonl` as its other
 * 200 forms.
 */
const dataPath = /^\/api\/[0-9a-f-]{36}\/data\/[0-9a-f-]{36}$/i;

const fileFormat = (url: URL) => url.searchParams.getAll('format').at(-1);

/** The last `format` wins, as the bridge reads repeated query parameters. */
const isDataFileRequest = (request: Request, url: URL) =>
  request.method === 'GET' && dataPath.test(normalizePath(url.pathname)) && ['csv', 'jsonl'].includes(fileFormat(url) ?? '');

export function createRunDataFileRoute(options: CsvRouteOptions) {
  return createCsvRoute('/api/{scraperId}/data/{runId}', scrapeDataAccess, options, async (principal, request) => {
    const [, , scraperId, , runId] = normalizePath(new URL(request.url).pathname).split('/');
    const input = checkedQuery(scrapeDataInput.omit({ scraperId: true, runId: true }), request);
    return runDataFile(principal.workspaceId, { ...input, scraperId: scraperId!, runId: runId! }, input.format as 'csv' | 'jsonl');
  });
}

export const runDataFileRoute = defineDomainRoute({
  label: () => '/api/{scraperId}/data/{runId}',
  matches: isDataFileRequest,
  create: createRunDataFileRoute,
});
