import { initTRPC } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { z } from 'zod';
import type { Permission } from '../../schema/account.ts';
import type { ErrorCode } from '../../schema/error-codes.ts';
import { toErrorResponse, trpcCodeForStatus, type ErrorStyle } from '../errors/error-response.ts';
import type { PlanGate } from '../../schema/plans.ts';
import type { RequestContext } from './context.ts';
import { errorStyleOf } from './error-styles.ts';

/**
 * Every procedure's metadata. `permission` and `plan` are enforced by the
 * one middleware in procedures.ts and documented in /openapi.json; the rest
 * tells the REST bridge how to answer.
 */
export type Meta = OpenApiMeta<{
  /** The permission the credential must hold; `any` accepts any valid credential. */
  permission: Permission | 'any';
  /** The plans the workspace must be on (a plan gate); `planError` is the code answered otherwise (default plan_required). */
  plan?: PlanGate;
  planError?: Extract<ErrorCode, 'plan_required' | 'outreach_locked'>;
  /** The success status when it is not 200 (`fromOutput` when it depends on the output, e.g. 201 only when something was created). */
  successStatus?: number | FromOutput<number>;
  /**
   * The REST success answers by status when the body is not the output as it
   * is (`restBody`) or has another shape at each status: OpenAPI documents
   * these, and only these, as the operation's success responses.
   */
  restResponses?: Record<number, { description: string; body: z.ZodType }>;
  /**
   * The error codes the procedure itself can answer beyond what every
   * operation like it can (credential, rate limit, permission and plan, bad
   * input, unknown path ids: src/http/surfaces/openapi-responses.ts derives those),
   * e.g. `['conflict']`. OpenAPI documents each at its status with its body.
   */
  errors?: ErrorCode[];
  /** REST input to procedure input, when the procedure takes it in another shape (for example free-form parameters). */
  restInput?: (raw: Record<string, unknown>) => unknown;
  /**
   * Media types the REST success answer also comes in besides JSON, with
   * their schema (a download a query parameter asks for, such as
   * `format=csv`, served by a route of its own): OpenAPI lists them beside
   * the JSON body.
   */
  restMediaTypes?: Record<string, { schema: Record<string, unknown> }>;
  /** The REST body when it is not the output itself (for example the bare extracted data), from `fromOutput`. */
  restBody?: FromOutput<unknown>;
  /** How errors are answered (see ErrorStyle); the scraping routes answer with `success: false` and an `errorType`. */
  errorStyle?: ErrorStyle;
  /**
   * A query that changes data all the same (a GET of a published endpoint runs a scrape and charges for it): like a
   * mutation, it can answer 507 storage_full, and a database fault's answer says its change may have been applied.
   */
  changesData?: true;
}>;

/** A part of the REST answer computed from the procedure's output, with the output schema it is typed against. */
export type FromOutput<R> = ((output: unknown) => R) & { output: z.ZodType };

/**
 * Types a REST answer's function against the output schema the procedure declares (`.output(schema)`, the same
 * schema): the REST bridge checks they are one schema, and calls it with the output that schema checked.
 */
export function fromOutput<S extends z.ZodType, R>(output: S, answer: (output: z.output<S>) => R): FromOutput<R> {
  return Object.assign((value: unknown) => answer(value as z.output<S>), { output });
}

const t = initTRPC
  .context<RequestContext>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const { status, body } = toErrorResponse(error, errorStyleOf(error));
      // tRPC clients get the same message, status and code as REST, and never a stack.
      return {
        message: body.error,
        code: TRPC_ERROR_CODES_BY_KEY[trpcCodeForStatus(status)],
        data: { httpStatus: status, path: shape.data.path, ...body },
      };
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;
