import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { settings, withRequestOrigin, type Config } from '../config.ts';
import { requestStage } from '../errors/database-faults.ts';
import { toErrorResponse } from '../errors/error-response.ts';
import { logFault, noteRequest, runWithRequestId } from '../logger.ts';
import { writeJsonAnswer } from '../web/answers.ts';
import type { NodeRoute } from '../web/domain-route.ts';
import { createCors } from './kit/cors.ts';
import { requestIdFor, requestIdHeader } from './kit/request-id.ts';
import { observeRequest } from './kit/request-log.ts';

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The longest URL served. Node refuses only what overflows its header limit
 * (16 KB for the URL and headers together, answered 414 or 431 by
 * answerClientError); a shorter cap keeps URLs within what proxies, caches
 * and logs handle everywhere.
 */
const maxUrlLength = 8_192;

/** A proxy header's first entry (the client's end of the chain). */
export const firstForwarded = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();

/** The origin the client addressed: its Host, and behind a trusted proxy the proxy's X-Forwarded-Proto and -Host. */
function requestOrigin(req: IncomingMessage): string {
  const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const originOf = (proto: string, host: string | undefined) => {
    try {
      return new URL(`${proto}://${host ?? 'localhost'}`).origin;
    } catch {
      return null;
    }
  };
  const own = originOf(scheme, req.headers.host) ?? `${scheme}://localhost`;
  if (!settings().TRUST_PROXY) return own;
  const proto = firstForwarded(req.headers['x-forwarded-proto']);
  const host = firstForwarded(req.headers['x-forwarded-host']);
  return originOf(proto && /^https?$/i.test(proto) ? proto : scheme, host ?? req.headers.host) ?? own;
}

const pathnameOf = (url: string) => (url.startsWith('/') ? url.split('?', 1)[0]! : (URL.parse(url)?.pathname ?? url));

/**
 * The API's one front door, on Node's request and response before anything reads them: every request gets its id,
 * its log line and metrics, the CORS decision and the URL cap here, once; then the routes served on Node's objects
 * (`nodeRoutes`, named in logs and metrics by their label, a failure answered with the standard JSON body), and
 * everything else goes to `web`: the surfaces and the domains' routes (app.ts).
 */
export function createFrontDoor(config: Config, nodeRoutes: readonly NodeRoute[], web: NodeListener): NodeListener {
  const cors = createCors(config.CORS_ORIGINS);

  const serveOnNode = (route: NodeRoute, req: IncomingMessage, res: ServerResponse, pathname: string) => {
    noteRequest({ route: route.label(pathname) });
    const failed = (error: unknown) => {
      logFault(error);
      if (res.headersSent) return void res.destroy();
      const { status, body, headers } = toErrorResponse(error, 'standard', requestStage(req.method));
      writeJsonAnswer(res, status, body, headers);
    };
    try {
      void Promise.resolve(route.serve(req, res, pathname)).catch(failed);
    } catch (error) {
      failed(error);
    }
  };

  return (req, res) => {
    const given = req.headers['x-request-id'];
    const requestId = requestIdFor(Array.isArray(given) ? given.join(', ') : given);
    res.setHeader(requestIdHeader, requestId);
    // Everything the request awaits runs in its scope: its log lines carry the id, and the URLs it names its origin.
    withRequestOrigin(requestOrigin(req), () =>
      runWithRequestId(requestId, () => {
        observeRequest(req, res);
        if (cors(req, res)) return;
        const url = req.url ?? '/';
        if (url.length > maxUrlLength)
          return writeJsonAnswer(res, 414, { error: `The request URL is longer than ${maxUrlLength} characters`, code: 'uri_too_long' });
        const pathname = pathnameOf(url);
        const route = nodeRoutes.find((candidate) => candidate.matches(pathname));
        if (route) serveOnNode(route, req, res, pathname);
        else web(req, res);
      }),
    );
  };
}
