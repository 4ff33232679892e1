import { randomUUID } from 'node:crypto';
import { nowMs } from '../clock.ts';
import { settings } from '../config.ts';
import { AppError, notFound, nullIfNotFound } from '../errors/app-error.ts';
import { getRun, getScraperDoc, queueRun, runData, waitForRunToEnd } from '../scraping/index.ts';
import { findEndpointCall, forgetEndpointCall, freshCacheEntry, recordEndpointCall } from './endpoint-cache.ts';
import { settleEndpointRun } from './endpoint-health.ts';
import { cacheKeyFor, fillTemplate, validateParams } from './endpoint-params.ts';
import { endpointBySlug } from './endpoints.service.ts';

export interface InvokeResult {
  status: 'completed' | 'queued' | 'running';
  runId: string | null;
  data?: unknown;
  cache: 'HIT' | 'MISS';
  ageSeconds: number;
  /** The endpoint's health once this result was judged (endpoint-health.ts). */
  health: 'ok' | 'drifted';
}

type ScrapeRun = Awaited<ReturnType<typeof getRun>>;

const ageOf = (since: Date | null | undefined) => Math.floor((nowMs() - (since ?? new Date(nowMs())).getTime()) / 1000);

/** The run's data once completed, else its status to poll. */
async function answer(run: ScrapeRun, health: InvokeResult['health']): Promise<InvokeResult> {
  const { status, data } = await runData(run);
  if (status !== 'completed') return { status: status as 'queued' | 'running', runId: run._id, cache: 'MISS', ageSeconds: 0, health };
  return { status: 'completed', runId: run._id, data, cache: 'MISS', ageSeconds: ageOf(run.finishedAt), health };
}

/** The cached result for these parameters, if one is fresh and its run still holds the data. */
async function cachedResult(workspaceId: string, cacheKey: string, health: InvokeResult['health']): Promise<InvokeResult | null> {
  const cached = await freshCacheEntry(cacheKey);
  const run = cached && (await getRun(workspaceId, cached.runId).catch(nullIfNotFound));
  if (!cached || run?.status !== 'completed') return null;
  const { data } = await runData(run);
  return { status: 'completed', runId: null, data, cache: 'HIT', ageSeconds: ageOf(cached.storedAt), health };
}

/**
 * Resolves a call to a published endpoint, in this order: a fresh
 * cached result at once and free; otherwise a scrape, waited for up to the
 * inline budget; past it (or in async mode) the run to poll.
 */
export async function invokeEndpoint(
  workspaceId: string,
  slug: string,
  params: Record<string, unknown>,
  via: 'GET' | 'POST',
): Promise<InvokeResult> {
  const endpoint = await endpointBySlug(workspaceId, slug);
  if (endpoint.method !== via) throw new AppError('method_not_allowed', `This endpoint is called with ${endpoint.method}`);
  const values = validateParams(JSON.parse(endpoint.paramSchemaJson) as Record<string, unknown>, params, via === 'GET');
  const cacheKey = cacheKeyFor(workspaceId, slug, values);
  if (endpoint.freshness === 'cached_ok') {
    const cached = await cachedResult(workspaceId, cacheKey, endpoint.health ?? 'ok');
    if (cached) return cached;
  }

  const scraper = await getScraperDoc(workspaceId, endpoint.scraperId);
  // The call is recorded before the run exists, so the run's completion always finds where to cache its result.
  const runId = randomUUID();
  await recordEndpointCall({ _id: runId, workspaceId, endpointId: endpoint._id, cacheKey, cacheTtlSeconds: endpoint.cacheTtlSeconds });
  const { run } = await queueRun(workspaceId, scraper, fillTemplate(endpoint.urlTemplate, values), {
    runId,
    outputSchemaJson: endpoint.outputSchemaJson,
  }).catch(async (error: unknown) => {
    await forgetEndpointCall(runId);
    throw error;
  });
  const health = endpoint.health ?? 'ok';
  if (endpoint.mode === 'async') return { status: 'queued', runId: run._id, cache: 'MISS', ageSeconds: 0, health };
  const ended = await waitForRunToEnd(workspaceId, run._id, settings().INVOKE_INLINE_TIMEOUT_MS);
  // Judged (and, healthy, cached for the next callers) now, not only when the run's event gets to its subscriber.
  const judged = ended.finishedAt ? await settleEndpointRun(ended._id) : null;
  return answer(ended, judged ?? health);
}

/** GET /v1/e/{slug}/results/{runId}: the run's status until done, then its data. */
export async function endpointResult(workspaceId: string, slug: string, runId: string): Promise<InvokeResult> {
  const endpoint = await endpointBySlug(workspaceId, slug);
  const call = await findEndpointCall(runId);
  if (call?.endpointId !== endpoint._id) throw notFound('Run');
  return answer(await getRun(workspaceId, runId), endpoint.health ?? 'ok');
}
