import { normalizePath } from 'trpc-to-openapi';
import { z } from 'zod';
import { startImportQuery } from '../../schema/lead-imports.ts';
import type { Principal } from '../auth/principal.ts';
import { settings } from '../config.ts';
import { AppError } from '../errors/app-error.ts';
import { onceForKey } from '../idempotency/idempotency.service.ts';
import { toErrorResponse } from '../errors/error-response.ts';
import { fieldError } from '../errors/field-error.ts';
import { noteRequest } from '../logger.ts';
import { createRequestContext } from '../trpc/context.ts';
import type { Meta } from '../trpc/init.ts';
import { admitCall } from '../trpc/procedures.ts';
import { jsonAnswer } from '../web/answers.ts';
import { checkedQuery, createCsvRoute } from '../web/csv-download.ts';
import { defineDomainRoute, type RouteOptions } from '../web/domain-route.ts';
import { readBodyChunks } from '../web/request-body.ts';
import { getCsvImport, listCsvImports, rejectedRows } from './csv-import.service.ts';
import { startCsvImport } from './csv-upload.service.ts';

/**
 * CSV imports, REST only: `POST /api/leads/imports` takes a `text/csv` body, which no JSON procedure can stream, so
 * the import's routes are the domain's own (src/web), admitted as procedures are (admitCall: credential, rate limit,
 * permission); /openapi.json documents them (src/http/surfaces/openapi.ts) with the access below.
 */
export const leadImportsPath = '/api/leads/imports';
export const leadImportPath = '/api/leads/imports/{id}';
export const leadImportRejectedPath = '/api/leads/imports/{id}/rejected';
export const startImportAccess = {
  permission: 'write',
  errors: ['unsupported_media_type', 'payload_too_large'],
} as const satisfies Partial<Meta>;
export const readImportAccess = { permission: 'read', errors: ['not_found'] } as const satisfies Partial<Meta>;

const importPath = /^\/api\/leads\/imports(?:\/([^/]+)(\/rejected)?)?$/;
const importId = z.uuid();

/** The import id in the path: 400 naming `id` when it is no id. */
function idOf(raw: string): string {
  if (!importId.safeParse(raw).success) throw fieldError({ field: 'id', problem: 'must be an import id (UUID)' });
  return raw;
}

type Answer = { status: number; body: unknown };
type Context = ReturnType<typeof createRequestContext>;

/** A JSON route: admitted as procedures are, its errors answered with the same bodies. */
function jsonRoute(label: string, access: Pick<Meta, 'permission'>, changesData: boolean, options: RouteOptions) {
  return async (request: Request, answer: (principal: Principal, ctx: Context) => Promise<Answer>): Promise<Response> => {
    noteRequest({ route: label });
    const ctx = createRequestContext(request.headers, options.rateLimitPerMinute);
    try {
      const principal = await admitCall(ctx, access, changesData);
      const { status, body } = await answer(principal, ctx);
      return jsonAnswer(status, body, ctx.responseHeaders);
    } catch (error) {
      const { status, body, headers } = toErrorResponse(error, 'standard', changesData ? 'started' : 'read');
      if (status >= 500) options.onFault(error);
      return jsonAnswer(status, body, { ...ctx.responseHeaders, ...headers });
    }
  };
}

function createLeadImportsRoute(options: RouteOptions) {
  const start = jsonRoute(leadImportsPath, startImportAccess, true, options);
  const list = jsonRoute(leadImportsPath, readImportAccess, false, options);
  const get = jsonRoute(leadImportPath, readImportAccess, false, options);
  const rejected = createCsvRoute(leadImportRejectedPath, readImportAccess, options, async (principal, request) => {
    const id = idOf(importPath.exec(normalizePath(new URL(request.url).pathname))![1]!);
    return { name: `import-${id}-rejected`, ...(await rejectedRows(principal.workspaceId, id)) };
  });

  return async function serveLeadImports(request: Request): Promise<Response> {
    const [, id, rejectedPart] = importPath.exec(normalizePath(new URL(request.url).pathname))!;
    const label = rejectedPart ? leadImportRejectedPath : id ? leadImportPath : leadImportsPath;
    const allowed = id ? 'GET' : 'GET, POST';
    if (request.method === 'GET' && rejectedPart) return rejected(request);
    if (request.method === 'GET' && id)
      return get(request, async (p) => ({ status: 200, body: { import: await getCsvImport(p.workspaceId, idOf(id)) } }));
    if (request.method === 'GET')
      return list(request, async (p) => ({ status: 200, body: { imports: await listCsvImports(p.workspaceId) } }));
    if (request.method === 'POST' && !id) return start(request, (principal, ctx) => startImport(request, principal, ctx));
    noteRequest({ route: label });
    const { status, body } = toErrorResponse(new AppError('method_not_allowed', `${request.method} is not allowed on ${label}`));
    return jsonAnswer(status, body, { Allow: allowed });
  };
}

/**
 * The upload, once per Idempotency-Key as every POST: the key covers the query and the file's declared length
 * (the file itself is read only by a first request), so a client that lost the 202 gets the same import again.
 */
async function startImport(request: Request, principal: Principal, ctx: Context): Promise<Answer> {
  const query = checkedQuery(startImportQuery, request);
  const type = request.headers.get('content-type') ?? '';
  if (!/^text\/csv\b/i.test(type))
    throw new AppError('unsupported_media_type', `Send the file as text/csv (got ${type || 'no content-type'})`);
  const run = async () => {
    const body = readBodyChunks(request, settings().IMPORT_MAX_BYTES, 'IMPORT_MAX_BYTES');
    return { import: await startCsvImport(principal, query, body) };
  };
  if (ctx.idempotencyKey === undefined) return { status: 202, body: await run() };
  const input = { ...query, length: request.headers.get('content-length') };
  const { outcome, replayed } = await onceForKey(
    { principalId: principal.id, key: ctx.idempotencyKey, operation: leadImportsPath, input },
    () =>
      run().then(
        (output) => ({ ok: true, output }),
        (error: unknown) => ({ ok: false, error }),
      ),
  );
  if (replayed) ctx.responseHeaders['Idempotent-Replayed'] = 'true';
  if (!outcome.ok) throw outcome.error;
  return { status: 202, body: outcome.output };
}

export const leadImportsRoute = defineDomainRoute({
  matches: (_request, url) => importPath.test(normalizePath(url.pathname)),
  create: createLeadImportsRoute,
});
