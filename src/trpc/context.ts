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

/** A request's headers, as the web platform (Headers) or Node gives them. */
const header = (headers: Headers | IncomingHttpHeaders, name: string) =>
  headers instanceof Headers ? (headers.get(name) ?? undefined) : single(headers[name]);

export const createRequestContext = (headers: Headers | IncomingHttpHeaders, rateLimitPerMinute: number): RequestContext => ({
  authorization: header(headers, 'authorization'),
  idempotencyKey: header(headers, 'idempotency-key'),
  rateLimitPerMinute,
  responseHeaders: {},
});
