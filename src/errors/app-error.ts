import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

/** Every machine-readable error code the API answers with, and its HTTP status. */
export const errorStatus = {
  validation_failed: 400,
  invalid_json: 400,
  url_not_allowed: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  validation_credits_exhausted: 402,
  missing_permission: 403,
  lead_limit: 403,
  plan_required: 403,
  outreach_locked: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  run_failed: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof errorStatus;

const trpcCodeByStatus: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
};

/**
 * The one error type services throw. It is a TRPCError so every surface
 * (REST, GraphQL, tRPC) sees the same status; `extra` carries the spec's
 * additional body fields (for example `used` and `limit` on lead_limit).
 */
export class AppError extends TRPCError {
  readonly appCode: ErrorCode;
  readonly status: number;
  readonly extra: Record<string, unknown>;

  /** `status` overrides the code's usual status where the spec asks (scraping answers 403 for credits). */
  constructor(appCode: ErrorCode, message: string, extra: Record<string, unknown> = {}, status: number = errorStatus[appCode]) {
    super({ code: trpcCodeByStatus[status] ?? 'INTERNAL_SERVER_ERROR', message });
    this.appCode = appCode;
    this.status = status;
    this.extra = extra;
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
