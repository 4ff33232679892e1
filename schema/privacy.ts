import { z } from 'zod';
import { dateTime, nullableDateTime, uuid } from './common.ts';
import { lead } from './leads.ts';
import { reply } from './outreach/replies.ts';
import { suppression } from './outreach/suppressions.ts';
import { validationResult } from './validation.ts';

export const privacyRequestInput = z
  .strictObject({ email: z.email().max(320).describe('The address (any case).') })
  .meta({ examples: [{ email: 'ada@acme.com' }] });

export const privacyMessage = z
  .object({
    id: z.string().describe("The message's record id."),
    campaign_id: uuid.nullable(),
    lead_id: uuid.nullable(),
    to: z.string(),
    subject: z.string(),
    status: z.enum(['claimed', 'sent', 'deferred', 'failed', 'interrupted']).describe('What became of it.'),
    sent_at: nullableDateTime,
    opened_at: nullableDateTime,
    created_at: dateTime,
  })
  .meta({ id: 'PrivacyMessage' });

export const privacyExportOutput = z.object({
  email: z.string().describe('The address, lower-cased.'),
  leads: z.array(lead).describe('Leads with this address.'),
  messages: z.array(privacyMessage).describe('Messages sent to it (or to its leads), newest first.'),
  replies: z.array(reply).describe('Replies from it, bounces and complaints about it, newest first.'),
  activity: z.array(z.record(z.string(), z.unknown())).describe("Its leads' activity feed entries."),
  validation_results: z.array(validationResult).describe('Email validation results for it, newest first.'),
  suppressions: z.array(suppression).describe('Its entry on the do-not-contact list, if any.'),
});

const erasedCounts = z
  .object({
    leads: z.int(),
    messages: z.int(),
    replies: z.int(),
    activity: z.int(),
    validation_results: z.int(),
    artifact_rows: z.int().describe("Rows of agent runs' files (leads.csv, result.json) that named it."),
  })
  .meta({ id: 'ErasedCounts', description: 'Records deleted, by kind.' });

export const privacyEraseOutput = z.object({
  erased: erasedCounts,
  suppressed: z.boolean().describe('The address is on the do-not-contact list (source `erasure`), so it is never written to again.'),
});

export const privacyRequest = z
  .object({
    id: uuid,
    kind: z.enum(['export', 'erase']),
    user_id: uuid.describe('The member whose credential asked.'),
    key_id: z.string().describe('The credential that asked (an API key id, or `oat_…` for an OAuth token).'),
    counts: z.record(z.string(), z.int()).describe('What was exported or erased, by kind: never the address.'),
    created_at: dateTime,
  })
  .meta({ id: 'PrivacyRequest' });

export const listPrivacyRequestsOutput = z.object({
  requests: z.array(privacyRequest).describe('The last 100, newest first.'),
});
