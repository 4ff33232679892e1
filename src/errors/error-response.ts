import { TRPCError } from '@trpc/server';
import { AppError, errorStatus, type ErrorCode } from './app-error.ts';

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  [extra: string]: unknown;
}

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  keys?: string[];
}

const isIssueList = (value: unknown): value is Issue[] =>
  Array.isArray(value) && value.every((i) => typeof i === 'object' && i !== null && 'message' in i);

const fieldName = (path: PropertyKey[]) => path.map(String).join('.');

/** One issue, phrased so the client knows which field to fix. */
function describeIssue(issue: Issue): { field: string; message: string } {
  if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
    const field = fieldName([...issue.path, issue.keys[0]!]);
    return { field, message: `${field}: unknown field` };
  }
  const field = fieldName(issue.path) || 'body';
  return { field, message: `${field}: ${issue.message}` };
}

/** Builds the `{ error, code, ... }` body and HTTP status for any thrown value. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof AppError) {
    return { status: error.status, body: { error: error.message, code: error.appCode, ...error.extra } };
  }
  if (error instanceof TRPCError) {
    const cause = error.cause as { issues?: unknown } | undefined;
    if (error.code === 'BAD_REQUEST' && isIssueList(cause?.issues)) {
      const described = cause.issues.map(describeIssue);
      return {
        status: 400,
        body: {
          error: `Invalid input: ${described.map((d) => d.message).join('; ')}`,
          code: 'validation_failed',
          field: described[0]?.field,
          issues: described,
        },
      };
    }
    const known: Partial<Record<TRPCError['code'], ErrorCode>> = {
      PARSE_ERROR: 'invalid_json',
      BAD_REQUEST: 'validation_failed',
      NOT_FOUND: 'not_found',
      PAYLOAD_TOO_LARGE: 'payload_too_large',
      UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
      METHOD_NOT_SUPPORTED: 'method_not_allowed',
    };
    const code = known[error.code];
    if (code) return { status: errorStatus[code], body: { error: error.message, code } };
  }
  // Anything else is a fault of ours: say so without internals.
  return { status: 500, body: { error: 'Internal server error', code: 'internal_error' } };
}

const scrapingErrorTypes: Partial<Record<ErrorCode, string>> = {
  unauthorized: 'authentication_error',
  insufficient_credits: 'insufficient_credits',
  missing_permission: 'authorization_error',
  rate_limited: 'rate_limit_error',
  validation_failed: 'validation_error',
};

/** The scraping routes' error body: `{ success: false, error, errorType }` plus the usual fields. */
export function scrapingErrorBody(body: ErrorBody) {
  return { success: false, ...body, errorType: scrapingErrorTypes[body.code] ?? body.code };
}
