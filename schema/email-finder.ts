import { z } from 'zod';
import { dateTime, uuid } from './common.ts';
import { emailProviderText, emailStatus, emailStatusText } from './email-status.ts';
import { validationJob } from './validation.ts';

/** The domain to look at: a host name, no scheme or path. */
const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?!-)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})+$/, 'a domain name such as acme.com, without scheme or path')
  .describe('e.g. `acme.com`.');
const namePart = z.string().trim().min(1).max(100);

export const findEmailInput = z
  .object({
    full_name: namePart.max(200).optional().describe('e.g. "Ada Byron".'),
    first_name: namePart.optional().describe('Instead of `full_name`.'),
    last_name: namePart.optional().describe('Instead of `full_name`.'),
    domain: domainName.optional(),
    lead_id: uuid.optional().describe("Use this lead's name and domain."),
  })
  .strict()
  .superRefine((input, ctx) => {
    const named = input.full_name !== undefined || input.first_name !== undefined || input.last_name !== undefined;
    if (input.lead_id === undefined && !named)
      ctx.addIssue({
        code: 'custom',
        path: ['full_name'],
        message: 'give full_name (or first_name and last_name) with domain, or lead_id',
      });
    if (input.lead_id === undefined && input.domain === undefined)
      ctx.addIssue({ code: 'custom', path: ['domain'], message: 'required with a name' });
    if (input.full_name !== undefined && (input.first_name !== undefined || input.last_name !== undefined))
      ctx.addIssue({ code: 'custom', path: ['first_name'], message: 'give full_name or first_name and last_name, not both' });
    if ((input.first_name === undefined) !== (input.last_name === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [input.first_name === undefined ? 'first_name' : 'last_name'],
        message: 'first_name and last_name go together',
      });
  })
  .meta({ examples: [{ full_name: 'Ada Byron', domain: 'acme.com' }] });

export const findEmailOutput = z
  .object({
    email: z
      .string()
      .nullable()
      .describe(
        'The address found (`valid`), or the likeliest one at a catch-all domain (`accept_all`); null otherwise. Never an address the server refused.',
      ),
    status: z
      .enum(['valid', 'accept_all', 'unknown', 'not_found'])
      .describe(
        '`valid`: the mail server accepted it and refuses made-up addresses; `accept_all`: the domain accepts every address, so `email` is the likeliest guess; ' +
          '`not_found`: every candidate was refused, or the domain takes no mail; `unknown`: the mail server could not be asked or gave no conclusive answer (see `reason`).',
      ),
    pattern: z.string().nullable().describe('The pattern of `email`, e.g. `first.last`, `flast`, `first`.'),
    known_pattern: z
      .string()
      .nullable()
      .describe("The domain's pattern learnt from the workspace's validated addresses there, tried first; null when none."),
    tried: z.int().describe('Candidate addresses the mail server was asked about.'),
    reason: z
      .string()
      .nullable()
      .describe(
        'For `unknown` and `not_found`: `mailbox_not_found` (every candidate refused), `no_domain`, `no_mail_host`, `null_mx`, `blocked`, `greylisted_or_temporary`, ' +
          '`smtp_unreachable` (no mail host answered on the probe port: outbound port 25 is blocked on many cloud hosts, so probes from there end `unknown`), `mail_host_not_public`.',
      ),
    detail: z.string().nullable().describe("The mail server's or resolver's own words, when there were any."),
    credits_charged: z
      .int()
      .describe('Validation credits taken: 1 for a conclusive lookup (`valid`, `accept_all`, `not_found`), 0 for `unknown`.'),
    lead_updated: z.boolean().describe('With `lead_id`: whether the address was written to the lead (its email was empty).'),
  })
  .meta({ id: 'FoundEmail' });

export const checkAddressInput = z
  .object({ email: z.email().max(320).describe('The address to check.') })
  .strict()
  .meta({ examples: [{ email: 'ada@acme.com' }] });

export const addressCheckResult = z
  .object({
    email: z.string().describe('The address checked, lower-cased.'),
    status: emailStatus.describe(`The verdict: ${emailStatusText}.`),
    reason: z.string().describe("Why, as a validation result's `reason` (`reused` for a result from the cache window)."),
    provider: z.string().nullable().describe(`${emailProviderText}.`),
    is_role: z.boolean().describe("A role address (info@, sales@, ...), not a person's."),
    is_disposable: z.boolean().describe('At a throwaway-mail domain.'),
    checked_at: dateTime,
  })
  .meta({ id: 'AddressCheck' });

export const checkAddressOutput = z.union([
  z.object({ result: addressCheckResult }),
  z.object({ job: validationJob.describe('Still checking after the wait: poll GET /api/leads/validate/{id}, then its results.') }),
]);
