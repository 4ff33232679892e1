import type { OpenAPIObject } from 'trpc-to-openapi';
import { maxKeyLength } from '../../idempotency/idempotency.service.ts';
import { rateLimitWindowSeconds } from '../../rate-limit/rate-limit.service.ts';
import { requestIdHeader } from '../kit/request-id.ts';

type Response = { description: string; headers?: Record<string, unknown>; content?: unknown };
type Operation = { security?: unknown[]; parameters?: unknown[]; responses?: Record<string, Response> };

const ref = (section: 'headers' | 'parameters', name: string) => ({ $ref: `#/components/${section}/${name}` });
const integer = { type: 'integer', minimum: 0 } as const;

/**
 * The headers the service sends and reads, declared once as components so
 * generated clients type them: every answer carries its request id, an
 * admitted call the limiter's state, a repeated POST the replay mark, and a
 * published endpoint's result where it came from.
 */
const headers = {
  [requestIdHeader]: {
    description:
      "The request's id: the client's own `X-Request-Id` when it is a plain token (up to 128 characters), else a new UUID. Logs name it.",
    required: true,
    schema: { type: 'string' },
  },
  'RateLimit-Limit': { description: 'Calls the credential may make in one window.', schema: integer },
  'RateLimit-Remaining': { description: 'Calls left in the current window.', schema: integer },
  'RateLimit-Reset': { description: 'Seconds until the current window ends and its count starts again.', schema: integer },
  'RateLimit-Policy': {
    description: `The limit and its window in seconds, as \`<limit>;w=${rateLimitWindowSeconds}\`.`,
    schema: { type: 'string', example: `120;w=${rateLimitWindowSeconds}` },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key` (the call did not run again).',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-Cache': {
    description: '`HIT`: a fresh cached result, which spent nothing; `MISS`: the scrape ran for this call.',
    schema: { type: 'string', enum: ['HIT', 'MISS'] },
  },
  Age: { description: 'Seconds since the data was extracted.', schema: integer },
  'X-Endpoint-Health': {
    description:
      "`drifted`: the endpoint's last result failed its output schema or found no items where the last healthy one had some (the data answered may be that empty result); `ok` otherwise.",
    schema: { type: 'string', enum: ['ok', 'drifted'] },
  },
};

const idempotencyKey = {
  in: 'header',
  name: 'Idempotency-Key',
  required: false,
  description:
    'Makes the call safe to retry: a repeat with the same key and body within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) instead of running twice.',
  schema: { type: 'string', minLength: 1, maxLength: maxKeyLength },
};

const rateLimitHeaders = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
/** Answered before the credential is read, so with no limiter state and no replay. */
const beforeAdmission = new Set(['401', '414', '431']);

/**
 * Declares the components and puts them where they apply: the request id on
 * every response; on an authenticated operation's responses (but those
 * answered before admission) the rate-limit headers; on a POST the
 * Idempotency-Key parameter and the replay mark; on the published endpoints'
 * success their cache headers.
 */
export function declareHeaders(document: OpenAPIObject): void {
  document.components = {
    ...document.components,
    headers: { ...document.components?.headers, ...headers } as never,
    parameters: { ...document.components?.parameters, IdempotencyKey: idempotencyKey } as never,
  };
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations as Record<string, Operation>))
      declareOperationHeaders(path, method, operation);
  }
}

/** One operation's header parameters and response headers, as declareHeaders places them (idempotent). */
export function declareOperationHeaders(path: string, method: string, operation: Operation): void {
  if (!operation?.responses) return;
  // A route that applies no Idempotency-Key says so (the CSV import's upload).
  const isPost = method === 'post' && !(operation as { 'x-no-idempotency-key'?: boolean })['x-no-idempotency-key'];
  const key = ref('parameters', 'IdempotencyKey');
  if (isPost && !operation.parameters?.some((p) => (p as { $ref?: string }).$ref === key.$ref))
    operation.parameters = [...(operation.parameters ?? []), key];
  for (const [status, response] of Object.entries(operation.responses)) {
    const names = [requestIdHeader];
    if (operation.security?.length && !beforeAdmission.has(status)) {
      names.push(...rateLimitHeaders);
      if (isPost) names.push('Idempotent-Replayed');
    }
    if (path.startsWith('/v1/e/') && status === '200') names.push('X-Cache', 'Age', 'X-Endpoint-Health');
    response.headers = { ...response.headers, ...Object.fromEntries(names.map((name) => [name, ref('headers', name)])) };
  }
}
