import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { AppError } from '../errors/app-error.ts';
import { toErrorResponse } from '../errors/error-response.ts';
import type { AppRouter } from '../router.ts';
import { createRequestContext, type RequestContext } from '../trpc/context.ts';
import { procedureDefs } from '../trpc/procedure-defs.ts';
import { readJsonBody } from './request-body.ts';
import { sendJson } from './send-json.ts';

/** Stands in for the response so the bridge, not trpc-to-openapi, writes status, headers and body. */
class CapturedResponse extends EventEmitter {
  statusCode = 200;
  writableEnded = false;
  setHeader() {}
  end() {
    this.writableEnded = true;
  }
}

type BridgedRequest = IncomingMessage & { body?: unknown; query?: unknown };

interface Outcome {
  ctx?: RequestContext;
  error?: unknown;
  output?: unknown;
  path?: string;
}

interface Options {
  rateLimitPerMinute: number;
  maxBodyBytes: number;
  onFault: (error: unknown) => void;
}

/**
 * Serves the router's procedures at their REST paths through trpc-to-openapi,
 * and bridges what it does not do the spec's way, here and nowhere else:
 * JSON bodies are parsed up front (DELETE bodies too, which it would read
 * only from the query string), the success status comes from the
 * procedure's `successStatus`, and errors get the `{ error, code, ... }` body.
 */
export function createRestBridge(appRouter: AppRouter, options: Options) {
  const byRequest = new WeakMap<IncomingMessage, Outcome>();
  const byContext = new WeakMap<RequestContext, Outcome>();
  const handler = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req }) => {
      const ctx = createRequestContext(req.headers.authorization, options.rateLimitPerMinute);
      const outcome = byRequest.get(req)!;
      outcome.ctx = ctx;
      byContext.set(ctx, outcome);
      return ctx;
    },
    responseMeta: ({ ctx, paths, data, errors }) => {
      const outcome = ctx && byContext.get(ctx);
      if (outcome && errors.length === 0) {
        outcome.output = data[0];
        outcome.path = paths?.[0];
      }
      return {};
    },
    onError: ({ error, req }) => {
      byRequest.get(req as IncomingMessage)!.error = error;
    },
  });

  const procedures = procedureDefs(appRouter);
  const successStatus = (path: string | undefined, output: unknown): number => {
    const status = path ? procedures[path]?.meta?.successStatus : undefined;
    return typeof status === 'function' ? (status as (o: unknown) => number)(output) : (status ?? 200);
  };

  return async function handleRest(req: IncomingMessage, res: ServerResponse) {
    const outcome: Outcome = {};
    byRequest.set(req, outcome);
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') await attachBody(req as BridgedRequest, options.maxBodyBytes);
      const captured = new CapturedResponse();
      await handler(req, captured as unknown as ServerResponse);
      captured.emit('close');
    } catch (error) {
      outcome.error = error;
    }
    const headers = outcome.ctx?.responseHeaders ?? {};
    if (outcome.error !== undefined) {
      const { status, body } = toErrorResponse(outcome.error);
      if (status >= 500) options.onFault(outcome.error);
      sendJson(res, status, body, headers);
      return;
    }
    sendJson(res, successStatus(outcome.path, outcome.output), outcome.output, headers);
  };
}

/** Parses the JSON body once, where trpc-to-openapi looks for it (DELETE input is read as the query). */
async function attachBody(req: BridgedRequest, maxBytes: number) {
  const body = await readJsonBody(req, maxBytes);
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new AppError('validation_failed', 'body: must be a JSON object', { field: 'body' });
  }
  if (req.method === 'DELETE') req.query = body ?? {};
  else req.body = body ?? {};
  req.headers['content-type'] = 'application/json';
}
