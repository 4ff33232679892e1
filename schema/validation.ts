import { z } from 'zod';
import { brandFilter, dateTime, nullableDateTime, uuid } from './common.ts';
import { emailProviderText, emailStatuses, emailStatusText } from './email-status.ts';

import { listLeadsInput } from './leads.ts';

export { billableStatuses, emailStatuses, type EmailStatus } from './email-status.ts';

export const validationJobStatuses = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

export const validationJob = z
  .object({
    id: uuid,
    status: z
      .enum(validationJobStatuses)
      .describe(
        'Job status: `queued` (waiting for a worker), `running` (checking, or waiting to ask again addresses that got a temporary answer), ' +
          '`completed` (every address has a result, or the job stopped early and says why in `error`), `failed` (the job could not run: `error` says why), `cancelled`.',
      ),
    source: z.enum(['manual', 'import', 'agent']).describe('What started the job: `manual` for the API.'),
    total: z.int().describe('Distinct addresses to check (leads sharing an address are checked once).'),
    processed: z.int().describe('Addresses with a result so far, reused ones included; moves while the job runs.'),
    billable: z
      .int()
      .describe('Results that spend a credit: conclusive ones (`valid`, `invalid`, `accept_all`, `disposable`) that were not reused.'),
    credits_charged: z.int().describe('Validation credits taken from the balance.'),
    overage_credits: z.int().describe('Credits spent beyond the balance while overage was on (billed later).'),
    counts: z.record(z.enum(emailStatuses), z.int()).describe(`Results so far by status, one entry for each: ${emailStatusText}.`),
    deferred: z
      .int()
      .describe('Addresses waiting to be asked again after a temporary answer (greylisting, a timeout, a refused connection).'),
    reused: z.int().describe('Addresses whose conclusive result from the cache window was reused, unbilled.'),
    skipped: z.int().describe('Selected leads left out: no email address, or (with `lead_ids`) not a lead of this workspace.'),
    error: z
      .string()
      .nullable()
      .describe(
        'Why the job stopped early (`validation_credits_exhausted`: the leads not yet checked keep their previous status) or failed; null otherwise.',
      ),
    next_retry_at: nullableDateTime.describe('While addresses are deferred: when the next of them is asked again.'),
    created_at: dateTime,
    started_at: nullableDateTime.describe('When a worker took the job up.'),
    finished_at: nullableDateTime,
  })
  .meta({ id: 'ValidationJob' });

const maxLeadIds = 5_000;

const leadSelection = z
  .object({
    q: listLeadsInput.shape.q,
    status: listLeadsInput.shape.status,
    agent_run_id: listLeadsInput.shape.agent_run_id,
    brand: brandFilter,
  })
  .strict()
  .describe("The lead list's filters (`GET /api/leads`): every lead they select, newest first, at most 100,000.");

export const startValidationInput = z
  .object({
    lead_ids: z
      .array(uuid)
      .min(1)
      .max(maxLeadIds)
      .optional()
      .describe(`The leads to check, 1 to ${maxLeadIds.toLocaleString('en')}.`),
    filter: leadSelection.optional(),
    force: z
      .boolean()
      .default(false)
      .describe('Check again (and bill) addresses that have a conclusive result within the cache window, which are otherwise reused.'),
  })
  .superRefine((input, ctx) => {
    if ((input.lead_ids === undefined) === (input.filter === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [input.lead_ids ? 'filter' : 'lead_ids'],
        message: 'give either lead_ids or filter, not both or neither',
      });
    }
  })
  .meta({ examples: [{ filter: { status: 'new' } }] });

export const validationJobOutput = z.object({ job: validationJob });
export const validationJobIdInput = z.object({ id: uuid.describe('The validation job.') });
export const listValidationJobsOutput = z.object({ jobs: z.array(validationJob).describe("The workspace's last 100 jobs, newest first.") });

export const validationResult = z
  .object({
    email: z.string().describe('The address checked, lower-cased.'),
    lead_ids: z.array(uuid).describe('The leads with this address.'),
    status: z.enum(emailStatuses).describe(`The verdict: ${emailStatusText}.`),
    reason: z
      .string()
      .describe(
        'Why: `accepted`, `accepted_any_address` (catch-all), `mailbox_not_found`, `mailbox_disabled`, `bad_syntax`, `no_domain`, `no_mail_host`, `null_mx`, ' +
          '`disposable_domain`, `greylisted_or_temporary` (no answer on any try), `mailbox_full`, `blocked` (the server refused the check itself), ' +
          '`mail_host_not_public` (the MX points at a private or loopback address, which validation may not reach), or `reused`.',
      ),
    detail: z.string().nullable().describe("The mail server's or resolver's own words, when there were any."),
    provider: z.string().nullable().describe(`${emailProviderText}.`),
    is_role: z.boolean().describe("A role address (info@, sales@, ...), not a person's."),
    is_free: z.boolean().describe('At a free mailbox provider (gmail.com, outlook.com, ...).'),
    mx_host: z.string().nullable().describe('The mail host asked.'),
    tries: z
      .int()
      .describe(
        'Times the address was checked (DNS, then SMTP), each try after a temporary answer counted; 0 for reused, bad-syntax and disposable results.',
      ),
    billed: z.boolean().describe('Whether the result spent a credit.'),
    checked_at: dateTime,
  })
  .meta({ id: 'ValidationResult' });

export const listValidationResultsInput = z.object({
  id: uuid.describe('The validation job.'),
  status: z.enum(emailStatuses).optional().describe('Only results with this verdict.'),
  limit: z.int().min(1).max(500).default(100).describe('Page size, at most 500.'),
  offset: z.int().min(0).default(0).describe('Rows to skip.'),
});

export const listValidationResultsOutput = z.object({
  results: z.array(validationResult).describe('One per address, in the order they were concluded; kept 30 days.'),
  total: z.int().describe('Results matching the filter.'),
});
