import type { IncomingMessage, ServerResponse } from 'node:http';
import { currentRequestId, log, requestFacts } from '../../logger.ts';
import { httpRequestDuration, httpRequests } from '../../metrics/metrics.ts';

/** A request the client gave up on before its answer was sent (nginx's convention). */
const clientClosed = 499;

/**
 * Once the request is over, answered or abandoned by its client: one log
 * line at info (method, route, status, duration, request id, key id; at
 * debug also the path and user agent) and the request's metrics. Call
 * inside the request's scope.
 */
export function observeRequest(req: IncomingMessage, res: ServerResponse) {
  const started = performance.now();
  const facts = requestFacts();
  const requestId = currentRequestId();
  res.once('close', () => {
    const seconds = (performance.now() - started) / 1000;
    const route = facts.route ?? 'unmatched';
    const method = req.method ?? 'GET';
    const status = res.writableFinished ? res.statusCode : clientClosed;
    httpRequests.inc({ route, method, status: String(status) });
    httpRequestDuration.observe({ route, method }, seconds);
    log.info('request', { requestId, method, route, status, durationMs: Math.round(seconds * 10_000) / 10, keyId: facts.keyId });
    log.debug('request detail', { requestId, path: (req.url ?? '').split('?', 1)[0], userAgent: req.headers['user-agent'] });
  });
}

/** A request refused before it could be parsed (414, 431, 400): its line and metrics, without route or key. */
export function recordUnparsedRequest(requestId: string, status: number) {
  httpRequests.inc({ route: 'unmatched', method: 'unknown', status: String(status) });
  log.info('request', { requestId, route: 'unmatched', status });
}
