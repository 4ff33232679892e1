import { getPathRegExp, normalizePath } from 'trpc-to-openapi';
import { AppError } from '../../errors/app-error.ts';
import { noteRequest } from '../../logger.ts';
import { toErrorResponse } from '../../errors/error-response.ts';
import type { AppRouter } from '../router.ts';
import { createRequestContext, type RequestContext } from '../../trpc/context.ts';
import { procedureCaller, procedureDefs, type ProcedureDef } from '../../trpc/procedure-defs.ts';
import { jsonAnswer } from '../../web/answers.ts';
import { queryInput } from '../../web/query-input.ts';
import { readJson } from '../../web/request-body.ts';

interface Route {
  method: string;
  /** The path as declared, e.g. /api/leads/{id}. */
  template: string;
  pattern: RegExp;
  path: string;
  procedure: ProcedureDef;
}

interface Options {
  rateLimitPerMinute: number;
  maxBodyBytes: number;
  onFault: (error: unknown) => void;
}

/**
 * Serves each procedure at the REST path and method of its trpc-to-openapi
 * meta (the same meta that generates /openapi.json): GET
 * input from the query string, every other method's from a JSON body
 * (DELETE included), path parameters merged in, the procedure's
 * `successStatus`, and `{ error, code, ... }` bodies for errors.
 */
const literalSegments = (template: string) => template.split('/').filter((segment) => segment && !segment.startsWith('{')).length;

export function createRestBridge(appRouter: AppRouter, options: Options) {
  const routes: Route[] = Object.entries(procedureDefs(appRouter))
    .flatMap(([path, procedure]) => {
      const openapi = procedure.meta?.openapi;
      return openapi
        ? [{ method: openapi.method, template: openapi.path, pattern: getPathRegExp(normalizePath(openapi.path)), path, procedure }]
        : [];
    })
    // A path is the resource of its most specific template: /api/leads/capacity before /api/leads/{id}.
    .sort((a, b) => literalSegments(b.template) - literalSegments(a.template));
  for (const { path, procedure } of routes) assertAnswersFromItsOutput(path, procedure);
  const call = procedureCaller(appRouter);

  return async function handleRest(request: Request): Promise<Response> {
    let ctx: RequestContext | undefined;
    let route: Route | undefined;
    let allow: Record<string, string> = {};
    try {
      const url = new URL(request.url);
      const pathname = normalizePath(url.pathname);
      const best = routes.find((route) => route.pattern.test(pathname));
      if (!best) throw new AppError('not_found', `No route ${request.method} ${url.pathname}`);
      const resource = routes.filter((r) => r.template === best.template);
      route = resource.find((r) => r.method === request.method);
      if (!route) {
        allow = { Allow: resource.map((r) => r.method).join(', ') };
        throw new AppError('method_not_allowed', `${request.method} is not allowed on ${url.pathname}`);
      }
      noteRequest({ route: route.template });
      const pathParams = route.pattern.exec(pathname)?.groups ?? {};
      const input = await readInput(request, url, route, pathParams, options.maxBodyBytes);
      ctx = createRequestContext(request.headers, options.rateLimitPerMinute);
      const output = await call(ctx, route.path, input);
      const meta = route.procedure.meta;
      const status = typeof meta?.successStatus === 'function' ? meta.successStatus(output) : (meta?.successStatus ?? 200);
      return jsonAnswer(status, meta?.restBody ? meta.restBody(output) : output, ctx.responseHeaders);
    } catch (error) {
      const { status, body, headers } = toErrorResponse(error, route?.procedure.meta?.errorStyle);
      if (status >= 500) options.onFault(error);
      return jsonAnswer(status, body, { ...allow, ...ctx?.responseHeaders, ...headers });
    }
  };
}

/** A REST answer computed from the output must be typed against the procedure's own output schema (fromOutput). */
function assertAnswersFromItsOutput(path: string, { meta, output }: ProcedureDef) {
  for (const [name, answer] of [
    ['successStatus', meta?.successStatus],
    ['restBody', meta?.restBody],
  ] as const) {
    if (typeof answer === 'function' && answer.output !== output)
      throw new Error(`procedure ${path}: its ${name} is typed against another schema than its output`);
  }
}

async function readInput(request: Request, url: URL, route: Route, pathParams: Record<string, string>, maxBodyBytes: number) {
  const schema = route.procedure.inputs[0];
  if (!schema || schema.def.type === 'void') return undefined;
  const reshape = route.procedure.meta?.restInput ?? ((raw) => raw);
  if (request.method === 'GET') return reshape({ ...queryInput(schema, url.searchParams), ...pathParams });
  const body = (await readJson(request, maxBodyBytes))?.value ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('validation_failed', 'body: must be a JSON object', { field: 'body' });
  }
  return reshape({ ...body, ...pathParams });
}
