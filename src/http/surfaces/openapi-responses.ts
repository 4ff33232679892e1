import { STATUS_CODES } from 'node:http';
import { AppError } from '../../errors/app-error.ts';
import { type ErrorCode } from '../../../schema/error-codes.ts';
import { toErrorResponse, type ErrorStyle } from '../../errors/error-response.ts';
import type { Meta } from '../../trpc/init.ts';

/**
 * The error responses of each operation in /openapi.json, derived from what
 * it can really answer:
 * - every operation: 500, and the server's own 414 (URL over 8,192
 *   characters or Node's limit) and 431 (headers over Node's limit), which are
 *   answered before any route and so always in the standard style; and 503
 *   `database_unavailable` (every call reads its credential from the database);
 * - one that changes data (every method but GET, and a GET whose meta says
 *   `changesData`): 507 `storage_full`;
 * - an authenticated one: 401, 429, 403 `missing_permission` (unless any valid
 *   credential may call it) and its plan gate's code;
 * - one that takes input: 400 `validation_failed`, and with a JSON body
 *   (every method but GET) `invalid_json`, 413 and 415;
 * - a path with ids: 404;
 * - a POST: what its Idempotency-Key can answer (400 for a bad key, 409
 *   `idempotency_in_progress`, 422 `idempotency_key_reused`);
 * - the rest from the procedure's own `errors` meta (AppError codes).
 * Each code's status and body come from toErrorResponse, the mapping every
 * surface answers with, in the operation's error style.
 */

const serverCodes: ErrorCode[] = ['uri_too_long', 'headers_too_large'];
const bodyCodes: ErrorCode[] = ['invalid_json', 'payload_too_large', 'unsupported_media_type'];
const idempotencyCodes: ErrorCode[] = ['validation_failed', 'idempotency_in_progress', 'idempotency_key_reused'];

export interface OperationFacts {
  method: string;
  /** The OpenAPI path template (`/api/scrapers/{id}`). */
  path: string;
  meta: Meta;
  takesInput: boolean;
}

/** The codes an operation can answer, in errorStatus order. */
export function errorCodesOf({ method, path, meta, takesInput }: OperationFacts): ErrorCode[] {
  const codes = new Set<ErrorCode>(['unauthorized', 'rate_limited', 'internal_error', 'database_unavailable']);
  if (method.toUpperCase() !== 'GET' || meta.changesData) codes.add('storage_full');
  if (meta.permission !== 'any') codes.add('missing_permission');
  if (meta.plan) codes.add(meta.planError ?? 'plan_required');
  if (takesInput) {
    codes.add('validation_failed');
    if (method.toUpperCase() !== 'GET') for (const code of bodyCodes) codes.add(code);
  }
  if (/\{[^}]+\}/.test(path)) codes.add('not_found');
  if (method.toUpperCase() === 'POST') for (const code of idempotencyCodes) codes.add(code);
  for (const code of meta.errors ?? []) codes.add(code);
  return [...codes];
}

interface ResponseObject {
  description: string;
  headers?: Record<string, unknown>;
  content: { 'application/json': { schema: Record<string, unknown> } };
}

const retryAfterHeaders: Record<number, Record<string, unknown>> = {
  429: {
    'Retry-After': {
      description: "Seconds until the key's one-minute window ends and its count starts again.",
      schema: { type: 'integer', minimum: 0 },
    },
  },
  503: { 'Retry-After': { description: 'Seconds worth waiting before trying again.', schema: { type: 'integer', minimum: 0 } } },
};

/** One response per status: the style's body schema, its `code` narrowed to the codes answered with that status. */
export function errorResponses(codes: ErrorCode[], style: ErrorStyle = 'standard'): Record<string, ResponseObject> {
  const byStatus = new Map<number, { style: ErrorStyle; codes: ErrorCode[] }>();
  const add = (code: ErrorCode, codeStyle: ErrorStyle) => {
    const { status } = toErrorResponse(new AppError(code, code), codeStyle);
    const entry = byStatus.get(status) ?? { style: codeStyle, codes: [] };
    entry.codes.push(code);
    byStatus.set(status, entry);
  };
  for (const code of codes) add(code, style);
  for (const code of serverCodes) add(code, 'standard');

  const responses: Record<string, ResponseObject> = {};
  for (const [status, entry] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `${STATUS_CODES[status]}: ${entry.codes.map((code) => `\`${code}\``).join(', ')}`,
      ...(retryAfterHeaders[status] && { headers: retryAfterHeaders[status] }),
      content: { 'application/json': { schema: errorSchema(entry.style, entry.codes) } },
    };
  }
  return responses;
}

function errorSchema(style: ErrorStyle, codes: ErrorCode[]) {
  return {
    allOf: [
      { $ref: `#/components/schemas/${style === 'scraping' ? 'ScrapingError' : 'Error'}` },
      { type: 'object', properties: { code: { type: 'string', enum: codes } }, required: ['code'] },
    ],
  };
}
