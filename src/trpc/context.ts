/** What every procedure call starts with, whichever surface it came through. */
export interface RequestContext {
  authorization: string | undefined;
  /** The request's Idempotency-Key header (src/idempotency), if any. */
  idempotencyKey: string | undefined;
  rateLimitPerMinute: number;
  /** Headers the surface copies onto its HTTP response (rate-limit headers, Retry-After, Idempotent-Replayed). */
  responseHeaders: Record<string, string>;
}

export const createRequestContext = (headers: Headers, rateLimitPerMinute: number): RequestContext => ({
  authorization: headers.get('authorization') ?? undefined,
  idempotencyKey: headers.get('idempotency-key') ?? undefined,
  rateLimitPerMinute,
  responseHeaders: {},
});
