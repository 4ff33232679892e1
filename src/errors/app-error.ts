/** Every machine-readable error code the API answers with, and its HTTP status. */
export const errorStatus = {
  validation_failed: 400,
  invalid_json: 400,
  url_not_allowed: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  validation_credits_exhausted: 402,
  missing_permission: 403,
  link_invalid: 403,
  lead_limit: 403,
  key_limit: 403,
  plan_required: 403,
  outreach_locked: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_in_progress: 409,
  inbox_paused: 409,
  inbox_cap_reached: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  run_failed: 422,
  idempotency_key_reused: 422,
  suppressed: 422,
  message_rejected: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  smtp_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/**
 * The one error type services throw: a code from the table above, a message
 * for people, and `extra` body fields (for example `used` and `limit` on
 * lead_limit). It knows nothing of the surfaces; toErrorResponse maps it.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.extra = extra;
  }

  /** The code's usual HTTP status (a surface's error style may answer another, see toErrorResponse). */
  get status(): number {
    return errorStatus[this.code];
  }
}

/** For `.catch()`: a not_found becomes null, anything else is thrown on. */
export const nullIfNotFound = (error: unknown): null => {
  if (error instanceof AppError && error.code === 'not_found') return null;
  throw error;
};

export const notFound = (what: string, field?: string) => new AppError('not_found', `${field ? `${field}: ` : ''}${what} not found`, field ? { field } : {});
