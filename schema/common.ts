import { z } from 'zod';
import { errorStatus, type ErrorCode } from './error-codes.ts';
import { planGates, plans, type PlanGate } from './plans.ts';

export const uuid = z.uuid().describe('Identifier (UUID).');
/** The id in request examples where one is required: a call must put a real id there (the docs' examples leave optional ids out). */
export const exampleId = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
export const dateTime = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time.');
export const nullableDateTime = dateTime.nullable();

/** What deleting one item answers, whatever the item. */
export const deletion = z
  .object({ ok: z.boolean().describe('True when the item was deleted.'), id: uuid.describe("The deleted item's id.") })
  .meta({ id: 'Deletion' });

/** `brand=<brand_id>` narrows to one brand; `brand=all` (or no value) widens to the workspace. */
export const brandFilter = z
  .union([z.literal('all'), z.uuid()])
  .optional()
  .describe('A brand id to narrow to one brand, or `all` for the whole workspace (the default).');

const errorCode = z
  .enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]])
  .describe('Machine-readable code to branch on, for example `lead_limit`.');
const count = z.int().min(0);

/**
 * Every error body: `error` and `code`, plus the extra fields some codes add
 * (src/errors: AppError's `extra` and toErrorResponse). Nothing else is sent.
 */
export const errorBody = z
  .object({
    error: z.string().describe('Human-readable message; for a 400 it names the field.'),
    code: errorCode,
    field: z
      .string()
      .optional()
      .describe(
        'The input field at fault (`validation_failed`, `invalid_json`, `url_not_allowed`; a `not_found` or `conflict` about a field, e.g. `brand`, `slug`).',
      ),
    issues: z
      .array(
        z.object({ field: z.string().describe('The field, as a dotted path.'), message: z.string().describe('What is wrong with it.') }),
      )
      .optional()
      .describe('`validation_failed` from input checks: every invalid field.'),
    permission: z.string().optional().describe('`missing_permission`: the permission the credential lacks.'),
    plan: z.enum(plans).optional().describe("`plan_required` (or the gate's own code): the workspace's plan."),
    required: z
      .enum(Object.keys(planGates) as [PlanGate, ...PlanGate[]])
      .optional()
      .describe('`plan_required`: the gate, `paid` (any paid plan) or `pro` (Pro or Business).'),
    retryAfter: count
      .optional()
      .describe(
        "`rate_limited`: seconds until the key's one-minute window ends and its count starts again; `smtp_unavailable`, `database_unavailable`: seconds worth waiting before trying again. Also the Retry-After header.",
      ),
    used: count.optional().describe('`lead_limit`: leads stored now; `key_limit`: active API keys now; `seat_limit`: members now.'),
    limit: count
      .optional()
      .describe(
        "`lead_limit`: the plan's cap on stored leads; `key_limit`: the plan's cap on active API keys; `seat_limit`: the plan's seats.",
      ),
    needed: count.optional().describe('`insufficient_credits` (and other exhausted balances): credits the call needs.'),
    remaining: count.optional().describe('`insufficient_credits`: credits left.'),
    endpoints: z
      .array(z.string())
      .optional()
      .describe('`conflict` on deleting a scraper: the slugs of the published endpoints that use it.'),
    runId: uuid.optional().describe('`run_failed`: the run that failed.'),
    campaigns: z
      .array(z.string())
      .optional()
      .describe('`conflict` on deleting an inbox or a sequence: the names of the active campaigns that use it.'),
    status: z
      .string()
      .optional()
      .describe(
        "`conflict` on changing a campaign or enrolling in it: the campaign's status now; on cancelling a validation job that has ended: its status.",
      ),
    kind: z.string().optional().describe('`conflict` on answering a reply: its kind (`bounce` or `auto_reply`), which cannot be answered.'),
    cap: count.optional().describe("`inbox_cap_reached`: the inbox's cap today (sends in any rolling 24 hours)."),
    stored: z
      .array(
        z.object({
          index: count.describe("The lead's place in the request's `leads` (from 0)."),
          id: uuid.describe('The id it was stored under.'),
        }),
      )
      .optional()
      .describe('`storage_full` on an import: the leads stored before the disk filled (the others were not).'),
    smtpCode: z
      .string()
      .nullable()
      .optional()
      .describe("`message_rejected`: the SMTP server's reply code and enhanced status, e.g. `550 5.1.1`."),
    emailStatus: z
      .string()
      .optional()
      .describe("`invalid_email`: the address's email validation verdict, `invalid` (POST /api/leads/validate)."),
  })
  .meta({ id: 'Error' });

/** Errors of the scraping routes (errorStyle `scraping`): the standard body plus `success: false` and an `errorType`. */
export const scrapingErrorBody = errorBody
  .extend({
    success: z.literal(false).describe('Always false on an error.'),
    errorType: z
      .string()
      .describe(
        '`authentication_error`, `authorization_error`, `rate_limit_error` or `validation_error` for those codes; otherwise the code itself (e.g. `insufficient_credits`).',
      ),
  })
  .meta({ id: 'ScrapingError' });

export const okFlag = z.boolean().describe('True when the operation succeeded.');

/** For procedures that take no parameters. */
export const noInput = z.void();
