import { settings } from '../config.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { freshCacheEntry } from '../scraping/endpoint-cache.ts';
import type { ScrapeRunDoc } from '../scraping/scrape-run.model.ts';
import { findRun, getRun, queueRun, runData, waitForRunToEnd } from '../scraping/scrape-runs.service.ts';
import { getScraperDoc } from '../scraping/scrapers.service.ts';
import { cacheKeyFor, fillTemplate, validateParams } from './endpoint-params.ts';
import { endpointBySlug } from './endpoints.service.ts';
import type { EndpointDoc } from './endpoint.model.ts';

export interface InvokeResult {
  status: 'completed' | 'queued' | 'running';
  runId: string | null;
  data?: unknown;
  cache: 'HIT' | 'MISS';
  ageSeconds: number;
}

async function answer(run: ScrapeRunDoc): Promise<InvokeResult> {
  const { status, data } = await runData(run);
  if (status !== 'completed') return { status: status as 'queued' | 'running', runId: run._id, cache: 'MISS', ageSeconds: 0 };
  const age = Math.floor((Date.now() - (run.finishedAt ?? new Date()).getTime()) / 1000);
  return { status: 'completed', runId: run._id, data, cache: 'MISS', ageSeconds: age };
}

/**
 * Resolves a call to a published endpoint, as the spec orders it: a fresh
 * cached result at once and free; otherwise a scrape, waited for up to the
 * inline budget; past it (or in async mode) the run to poll.
 */
export async function invokeEndpoint(workspaceId: string, slug: string, params: Record<string, unknown>, via: 'GET' | 'POST'): Promise<InvokeResult> {
  const endpoint = await endpointBySlug(workspaceId, slug);
  if (endpoint.method !== via) throw new AppError('method_not_allowed', `This endpoint is called with ${endpoint.method}`);
  const values = validateParams(JSON.parse(endpoint.paramSchemaJson) as Record<string, unknown>, params, via === 'GET');
  const cacheKey = cacheKeyFor(workspaceId, slug, values);

  if (endpoint.freshness === 'cached_ok') {
    const cached = await freshCacheEntry(cacheKey);
    const run = cached && (await findRun(cached.runId));
    if (cached && run?.status === 'completed') {
      const { data } = await runData(run);
      return { status: 'completed', runId: null, data, cache: 'HIT', ageSeconds: Math.floor((Date.now() - cached.storedAt.getTime()) / 1000) };
    }
  }

  const scraper = await getScraperDoc(workspaceId, endpoint.scraperId);
  const { run } = await queueRun(workspaceId, scraper, fillTemplate(endpoint.urlTemplate, values), {
    endpointId: endpoint._id,
    cacheKey,
    cacheTtlSeconds: endpoint.cacheTtlSeconds,
    outputSchemaJson: endpoint.outputSchemaJson,
  });
  if (endpoint.mode === 'async') return { status: 'queued', runId: run._id, cache: 'MISS', ageSeconds: 0 };
  return answer(await waitForRunToEnd(run._id, settings().INVOKE_INLINE_TIMEOUT_MS));
}

/** GET /v1/e/{slug}/results/{runId}: the run's status until done, then its data. */
export async function endpointResult(workspaceId: string, slug: string, runId: string): Promise<InvokeResult> {
  const endpoint: EndpointDoc = await endpointBySlug(workspaceId, slug);
  const run = await getRun(workspaceId, runId);
  if (run.endpointId !== endpoint._id) throw notFound('Run');
  return answer(run);
}
