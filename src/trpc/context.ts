/** What every procedure call starts with, whichever surface it came through. */
export interface RequestContext {
  authorization: string | undefined;
  rateLimitPerMinute: number;
  /** Headers the surface copies onto its HTTP response (rate-limit headers, Retry-After). */
  responseHeaders: Record<string, string>;
}

export const createRequestContext = (authorization: string | undefined, rateLimitPerMinute: number): RequestContext => ({
  authorization,
  rateLimitPerMinute,
  responseHeaders: {},
});
