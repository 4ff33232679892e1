import { z } from 'zod';
import { exampleId, dateTime, nullableDateTime, uuid } from '../common.ts';

export const sendMessageInput = z
  .strictObject({
    inbox_id: uuid.optional().describe('The inbox to send from.'),
    smtp_config_id: uuid.optional().describe('The same as `inbox_id`.'),
    lead_id: uuid.optional().describe('The lead to write to (its email address is used); or give `to`.'),
    to: z.email().optional().describe("The address to write to, when not a lead's."),
    subject: z.string().trim().min(1).max(300).describe('Subject, 1 to 300 characters.'),
    body_html: z
      .string()
      .min(1)
      .max(100_000)
      .describe(
        'HTML body, sanitized to <p>, <br>, <strong> and <a href> (http, https, mailto) like sequence steps; an unsubscribe link is added.',
      ),
  })
  .refine((input) => (input.inbox_id ?? input.smtp_config_id) !== undefined, {
    message: 'give inbox_id (or smtp_config_id)',
    path: ['inbox_id'],
  })
  .refine((input) => (input.lead_id === undefined) !== (input.to === undefined), { message: 'give lead_id or to, not both', path: ['to'] })
  .meta({
    examples: [
      {
        inbox_id: exampleId,
        to: 'jane.doe@example.com',
        subject: 'Quick question',
        body_html: '<p>Hi Jane,</p><p>Do you have ten minutes this week?</p>',
      },
    ],
  });

export const outreachMessage = z
  .object({
    id: uuid,
    status: z.enum(['sent', 'failed']).describe('`sent` once the SMTP server accepted it.'),
    message_id: z.string().describe('The Message-ID header it went out with.'),
    to: z.string(),
    subject: z.string(),
    inbox_id: uuid,
    lead_id: uuid.nullable(),
    sent_at: nullableDateTime,
    created_at: dateTime,
  })
  .meta({ id: 'OutreachMessage' });
export const sendMessageOutput = z.object({ message: outreachMessage });
