import { TRPCError } from '@trpc/server';
import { noteDatabaseFault } from '../db/store-health.ts';
import { AppError } from './app-error.ts';
import { databaseFault, databaseFaultError, type CallStage } from './database-faults.ts';
import { errorStatus, type ErrorCode } from '../../schema/error-codes.ts';

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  [extra: string]: unknown;
}

/**
 * How a route answers errors. `scraping`: the scraping routes' own style,
 * with `success: false` and an `errorType`, and 403 (not 402) for a key
 * whose workspace is out of crawl credits.
 */
export type ErrorStyle = 'standard' | 'scraping';

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

/** tRPC's own errors (bad input, unparsable requests) in the API's codes. */
const codeOfTrpcError: Partial<Record<TRPCError['code'], ErrorCode>> = {
  PARSE_ERROR: 'invalid_json',
  BAD_REQUEST: 'validation_failed',
  NOT_FOUND: 'not_found',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  METHOD_NOT_SUPPORTED: 'method_not_allowed',
};

const fromAppError = (error: AppError) => ({ status: error.status, body: { error: error.message, code: error.code, ...error.extra } });

function standardResponse(error: unknown, stage: CallStage): { status: number; body: ErrorBody } {
  // Callers and middleware wrap what a procedure throws in a TRPCError; the service's error is its cause.
  const cause = error instanceof TRPCError && error.cause ? error.cause : error;
  noteDatabaseFault(cause);
  if (cause instanceof AppError) return fromAppError(cause);
  const fault = databaseFault(cause);
  if (fault) return fromAppError(databaseFaultError(fault, stage));
  if (error instanceof TRPCError) {
    const issues = (error.cause as { issues?: unknown } | undefined)?.issues;
    if (error.code === 'BAD_REQUEST' && isIssueList(issues)) {
      const described = issues.map(describeIssue);
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
    const code = codeOfTrpcError[error.code];
    if (code) return { status: errorStatus[code], body: { error: error.message, code } };
  }
  // Anything else is a fault of ours: say so without internals.
  return { status: 500, body: { error: 'Internal server error', code: 'internal_error' } };
}

const scrapingErrorTypes: Partial<Record<ErrorCode, string>> = {
  unauthorized: 'authentication_error',
  missing_permission: 'authorization_error',
  rate_limited: 'rate_limit_error',
  validation_failed: 'validation_error',
};

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  /** Headers the answer carries: `Retry-After` whenever the body has `retryAfter`; `Connection: close` for a body too large. */
  headers: Record<string, string>;
}

/**
 * The status, `{ error, code, ... }` body and headers for any thrown value, in the route's error style; every
 * surface answers from it. A store's error that reports a database fault (src/errors/database-faults.ts) is
 * answered 503 database_unavailable or 507 storage_full, saying what became of the call's change by its `stage`
 * (procedures get theirs phrased by apiProcedure, which knows; elsewhere a call is taken to have started changing
 * data unless told it only reads).
 */
export function toErrorResponse(error: unknown, style: ErrorStyle = 'standard', stage: CallStage = 'started'): ErrorResponse {
  const { status, body } = standardResponse(error, stage);
  const headers: Record<string, string> = {
    ...(typeof body.retryAfter === 'number' && { 'Retry-After': String(body.retryAfter) }),
    // A body refused for its size is left unread: closing the connection stops the client sending it.
    ...(body.code === 'payload_too_large' && { Connection: 'close' }),
  };
  if (style !== 'scraping') return { status, body, headers };
  return {
    status: body.code === 'insufficient_credits' ? 403 : status,
    body: { success: false, ...body, errorType: scrapingErrorTypes[body.code] ?? body.code },
    headers,
  };
}

/** tRPC's error code for an HTTP status, so tRPC clients see the same status as REST. */
export function trpcCodeForStatus(status: number): TRPCError['code'] {
  const codes: Record<number, TRPCError['code']> = {
    400: 'BAD_REQUEST',
    401: 'UNAUTHORIZED',
    402: 'PAYMENT_REQUIRED',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    405: 'METHOD_NOT_SUPPORTED',
    409: 'CONFLICT',
    413: 'PAYLOAD_TOO_LARGE',
    414: 'BAD_REQUEST',
    415: 'UNSUPPORTED_MEDIA_TYPE',
    422: 'UNPROCESSABLE_CONTENT',
    429: 'TOO_MANY_REQUESTS',
    431: 'BAD_REQUEST',
    503: 'SERVICE_UNAVAILABLE',
  };
  return codes[status] ?? 'INTERNAL_SERVER_ERROR';
}
