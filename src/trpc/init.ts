import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { toErrorResponse } from '../errors/error-response.ts';
import type { RequestContext } from './context.ts';

/**
 * Route metadata: the REST path, plus the success status when it is not
 * 200 (a function of the output when it depends on it, e.g. 201 only when
 * something was created).
 */
export type Meta = OpenApiMeta<{
  successStatus?: number | ((output: never) => number);
  /** With a function `successStatus`: the other statuses it can answer, documented in OpenAPI. */
  otherSuccessStatuses?: Record<number, string>;
  /** REST input to procedure input, when the procedure takes it in another shape (for example free-form parameters). */
  restInput?: (raw: Record<string, unknown>) => unknown;
  /** The REST body when it is not the output itself (for example the bare extracted data). */
  restBody?: (output: never) => unknown;
  /** `scraping`: error bodies also carry `success: false` and `errorType`, as the spec's scraping routes answer. */
  errorStyle?: 'scraping';
}>;

const t = initTRPC
  .context<RequestContext>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const { status, body } = toErrorResponse(error);
      // tRPC clients get the same message, status and code as REST, and never a stack.
      return { message: body.error, code: shape.code, data: { httpStatus: status, path: shape.data.path, ...body } };
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;
export const middleware = t.middleware;
export const createCallerFactory = t.createCallerFactory;
