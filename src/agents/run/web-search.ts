import { settings } from '../../config.ts';
import { guardedFetch } from '../../net/guarded-fetch.ts';

export interface SearchResult {
  url: string;
  title: string;
  content: string;
}

/**
 * Asks the SearXNG-compatible API at SEARCH_URL (`/search?q=…&format=json`)
 * through the outbound address guard. Failures are results the planner
 * reads (it may search again or go on), not failures of the run.
 */
export async function webSearch(
  query: string,
  page = 1,
): Promise<{ query: string; results: SearchResult[] } | { query: string; error: string }> {
  const base = settings().SEARCH_URL;
  if (!base) return { query, error: 'web search is not configured (SEARCH_URL): fetch pages whose URLs you know instead' };
  const url = new URL('search', base.endsWith('/') ? base : `${base}/`);
  url.search = new URLSearchParams({ q: query, format: 'json', pageno: String(page) }).toString();
  try {
    const response = await guardedFetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(20_000) });
    if (!response.ok) return { query, error: `the search service answered HTTP ${response.status}` };
    const body = (await response.json()) as { results?: Array<Record<string, unknown>> };
    const results = (body.results ?? [])
      .filter((result) => typeof result.url === 'string' && /^https?:\/\//.test(result.url))
      .slice(0, 20)
      .map((result) => ({
        url: String(result.url),
        title: String(result.title ?? '').slice(0, 200),
        content: String(result.content ?? '').slice(0, 400),
      }));
    return { query, results };
  } catch (error) {
    return {
      query,
      error: `the search service could not be reached: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    };
  }
}
