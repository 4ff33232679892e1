import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's metrics, served at GET /metrics in Prometheus text format.
 * Each is recorded where the thing happens: requests by the HTTP server,
 * jobs by the worker, pages by the scrape executor, credits by debits.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'Requests answered, by route (as declared), method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from request to response, by route and method.',
  labelNames: ['route', 'method'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
  registers: [registry],
});

export const jobRuns = new Counter({
  name: 'job_runs_total',
  help: 'Job attempts by job name and outcome: completed, failed (to be retried), given_up, refused (payload).',
  labelNames: ['job', 'outcome'] as const,
  registers: [registry],
});

export const scrapePages = new Counter({
  name: 'scrape_pages_total',
  help: 'Pages scraped and paid for, by engine.',
  labelNames: ['engine'] as const,
  registers: [registry],
});

export const creditsSpent = new Counter({
  name: 'credits_spent_total',
  help: 'Credits spent, overage included, by kind.',
  labelNames: ['kind'] as const,
  registers: [registry],
});

let queueDepthTracked = false;
/** The queue is read at most this often, however often /metrics is scraped. */
const queueDepthMaxAgeMs = 10_000;

/**
 * Jobs waiting for a worker by job name, read from the queue when metrics
 * are scraped (set up once per process). A failed read keeps the last
 * figures, so /metrics still answers while the database is away.
 */
export function trackQueueDepth(read: () => Promise<Record<string, number>>) {
  if (queueDepthTracked) return;
  queueDepthTracked = true;
  let last: { at: number; depth: Record<string, number> } = { at: -Infinity, depth: {} };
  new Gauge({
    name: 'job_queue_depth',
    help: 'Jobs due and not yet taken by a worker, by job name.',
    labelNames: ['job'] as const,
    registers: [registry],
    async collect() {
      if (performance.now() - last.at >= queueDepthMaxAgeMs) {
        last = { at: performance.now(), depth: await read().catch(() => last.depth) };
      }
      this.reset();
      for (const [job, count] of Object.entries(last.depth)) this.set({ job }, count);
    },
  });
}
