/**
 * Load the way real authenticated traffic looks: requests spread round-robin
 * over a pool of API keys, each key held under the real per-minute limit.
 * The run is capped at keys × limit requests, so no key is ever pushed past
 * its limit; if the cap ends the run before its duration, that is printed
 * (raise BENCH_KEYS). Only 2xx answers count as served; anything else is
 * printed.
 */
import autocannon from 'autocannon';

/** The service's default RATE_LIMIT_PER_MINUTE; the benches run the API with it. */
export const rateLimitPerMinute = 60;

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  /** Keys to spread requests over; empty for unauthenticated floors. */
  keys: string[];
  /** The API's limit a key (RATE_LIMIT_PER_MINUTE), if not the default. */
  limitPerMinute?: number;
  connections: number;
  seconds: number;
}

export interface LoadFigures {
  /** 2xx answers per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  done: number;
  failed: number;
  statusCounts: string;
  /** Set when the key budget, not the duration, ended the run. */
  budgetEndedAfter?: number;
}

export async function loadWithKeys(options: LoadOptions): Promise<LoadFigures> {
  const { keys } = options;
  let next = 0;
  const authorize = (request: { headers?: Record<string, string> }) =>
    keys.length ? { ...request, headers: { ...request.headers, authorization: `Bearer ${keys[next++ % keys.length]}` } } : request;
  const budget = keys.length ? keys.length * (options.limitPerMinute ?? rateLimitPerMinute) : undefined;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    body: options.body,
    headers: { 'content-type': 'application/json' },
    connections: options.connections,
    duration: options.seconds,
    maxOverallRequests: budget,
    timeout: 120,
    requests: [{ setupRequest: authorize as never }],
  });
  const ok = result['2xx'];
  const failed = result.non2xx + result.errors + result.timeouts;
  const statusCounts = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, { count }]) => `${count}×${code}`)
    .join(' ');
  return {
    rps: ok / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    done: ok,
    failed,
    statusCounts: [statusCounts, result.errors ? `${result.errors} errors` : '', result.timeouts ? `${result.timeouts} timeouts` : '']
      .filter(Boolean)
      .join(' '),
    budgetEndedAfter: budget && result.duration < options.seconds - 0.5 ? result.duration : undefined,
  };
}

/** One line: req/s, p50, p99, and what failed. */
export function formatFigures(name: string, f: LoadFigures, extra = '') {
  const failures = f.failed ? `, ${f.failed} NOT 2xx: ${f.statusCounts}` : '';
  const budget = f.budgetEndedAfter ? `, key budget ran out after ${f.budgetEndedAfter} s: raise BENCH_KEYS` : '';
  return `${name.padEnd(36)} ${f.rps.toFixed(1).padStart(8)} req/s  p50 ${String(f.p50).padStart(6)} ms  p99 ${String(f.p99).padStart(6)} ms${extra}  (${f.done} ok${failures}${budget})`;
}
