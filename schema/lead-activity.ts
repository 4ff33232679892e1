import { z } from 'zod';
import { dateTime, exampleId, uuid } from './common.ts';

/** What a lead's activity records, each written by the flow that causes it when it happens. */
export const leadActivityTypes = [
  'lead.created',
  'lead.updated',
  'lead.validated',
  'outreach.enrolled',
  'outreach.removed',
  'outreach.email.sent',
  'outreach.email.opened',
  'outreach.email.clicked',
  'outreach.email.bounced',
  'outreach.reply.received',
  'outreach.reply.sent',
  'outreach.unsubscribed',
] as const;
export type LeadActivityType = (typeof leadActivityTypes)[number];

export const leadActivityInput = z
  .object({
    id: uuid.describe("The lead's id."),
    limit: z.coerce.number().int().min(1).max(200).default(50).describe('1 to 200 (default 50).'),
    cursor: z.string().min(1).max(200).optional().describe('A `next_cursor`.'),
  })
  .meta({ examples: [{ id: exampleId, limit: 50 }] });

export const leadActivityEntry = z
  .object({
    id: z.string().describe('The entry.'),
    type: z.enum(leadActivityTypes).describe('What happened.'),
    at: dateTime.describe('When it happened.'),
    campaign_id: uuid.nullable().describe('The campaign it happened in, if any.'),
    message_id: z.string().nullable().describe('The outreach message record it concerns (its `id`), if any.'),
    step: z.int().nullable().describe('The campaign step of that message (0 is the first), if any.'),
    variant: z.int().nullable().describe("The step's A/B variant (0 is the step's own version), if any."),
    data: z
      .record(z.string(), z.unknown())
      .describe(
        'Details by type: `source` (`api`, `import`, `agent`) on lead.created, `fields` on lead.updated, `email_status` on lead.validated, `reason` on removed and unsubscribed, `reply_id` and `kind` on replies, `bounce_type` and `code` on bounces, `url` on clicks.',
      ),
  })
  .meta({ id: 'LeadActivity' });

export const leadActivityOutput = z.object({
  activity: z.array(leadActivityEntry).describe('Newest first.'),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
});
