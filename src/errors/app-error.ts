import { errorStatus, type ErrorCode } from '../../schema/error-codes.ts';

/**
 * The one error type services throw: a code from schema/error-codes.ts, a message
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

export const notFound = (what: string, field?: string) =>
  new AppError('not_found', `${field ? `${field}: ` : ''}${what} not found`, field ? { field } : {});
