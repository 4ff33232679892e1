import type { IncomingHttpHeaders } from 'node:http';

/** What every procedure call starts with, whichever surface it came through. */
export interface RequestContext {
  authorization: string | undefined;
  /** The request's Idempotency-Key header (src/idempotency), if any. */
  idempotencyKey: string | undefined;
  rateLimitPerMinute: number;
  /** Headers the surface copies onto its HTTP response (rate-limit headers, Retry-After, Idempotent-Replayed). */
  responseHeaders: Record<string, string>;
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export const createRequestContext = (headers: IncomingHttpHeaders, rateLimitPerMinute: number): RequestContext => ({
  authorization: single(headers.authorization),
  idempotencyKey: single(headers['idempotency-key']),
  rateLimitPerMinute,
  responseHeaders: {},
});
