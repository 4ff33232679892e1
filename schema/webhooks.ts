import { z } from 'zod';
import { exampleId, dateTime, deletion, nullableDateTime, uuid } from './common.ts';

/** Every event a webhook can subscribe to; each message is typed under `webhooks` in /openapi.json. */
export const webhookEventTypes = [
  'scrape.run.completed',
  'scrape.run.failed',
  'scrape.run.cancelled',
  'endpoint.output.drifted',
  'endpoint.output.recovered',
  'agent.run.completed',
  'agent.run.failed',
  'agent.run.paused',
  'validation.job.completed',
  'validation.job.failed',
  'outreach.reply.received',
  'outreach.bounce.received',
  'outreach.lead.unsubscribed',
  'outreach.campaign.completed',
  'outreach.inbox.paused',
  'outreach.email.sent',
  'outreach.email.opened',
  'outreach.email.clicked',
  'webhook.test',
] as const;

const events = z
  .array(
    z.union([z.enum(webhookEventTypes), z.literal('*')]).meta({ id: 'WebhookEventType', description: 'An event type, or `*` for all.' }),
  )
  .min(1)
  .max(webhookEventTypes.length + 1)
  .describe(`Event types to receive, or \`["*"]\` for all: ${webhookEventTypes.map((t) => `\`${t}\``).join(', ')}.`);

const campaignIds = z
  .array(uuid)
  .min(1)
  .max(100)
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a campaign')
  .describe('Limits the endpoint to these campaigns (1 to 100): events naming another campaign are not delivered.');

export const webhook = z
  .object({
    id: uuid,
    url: z.string().describe('Where events are POSTed: https, or http to an address OUTBOUND_ALLOWED_ADDRESSES exempts.'),
    events,
    campaign_ids: z.array(uuid).nullable().describe('The campaigns the endpoint is limited to, or null for all.'),
    enabled: z.boolean().describe('False once disabled: by PATCH, by the receiver answering 410 Gone, or after 5 days of failed attempts.'),
    description: z.string().describe('A note for people.'),
    disabled_reason: z
      .string()
      .nullable()
      .describe('Why the endpoint was disabled (`gone`: it answered 410; `failing`: every attempt failed for 5 days; `manual`), or null.'),
    created_at: dateTime,
  })
  .meta({ id: 'Webhook' });

const secret = z
  .string()
  .describe(
    'The signing secret (`whsec_` and base64), shown only in this answer: verify deliveries with it using any Standard Webhooks library.',
  );

const url = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .describe('The receiving URL: https, or http to an address OUTBOUND_ALLOWED_ADDRESSES exempts.');

export const createWebhookInput = z
  .object({
    url,
    events,
    campaign_ids: campaignIds.optional(),
    description: z.string().max(500).default('').describe('A note for people.'),
  })
  .strict()
  .meta({
    examples: [
      { url: 'https://example.com/hooks/lead-api', events: ['scrape.run.completed', 'agent.run.completed'], description: 'CRM sync' },
    ],
  });
export const createWebhookOutput = z.object({ webhook, secret });

export const webhookIdInput = z.object({ id: uuid.describe('The webhook endpoint.') });

export const updateWebhookInput = z
  .object({
    id: uuid.describe('The webhook endpoint.'),
    url: url.optional(),
    events: events.optional(),
    campaign_ids: campaignIds.nullable().optional().describe(`${campaignIds.description} null removes the limit.`),
    enabled: z.boolean().optional().describe('Turn deliveries off or back on (back on clears `disabled_reason`).'),
    description: z.string().max(500).optional(),
    rotate_secret: z
      .boolean()
      .optional()
      .describe('Issue a new secret (returned once as `secret`); the old one keeps signing alongside it for 24 hours.'),
  })
  .strict()
  .meta({ examples: [{ id: exampleId, events: ['*'], description: 'CRM sync (all events)' }] });
export const updateWebhookOutput = z.object({ webhook, secret: secret.optional() });

export const webhookOutput = z.object({ webhook });
export const webhooksOutput = z.object({ webhooks: z.array(webhook).describe('Newest first.') });
export const deleteWebhookOutput = deletion;

export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;

export const webhookDelivery = z
  .object({
    id: uuid.describe('The delivery: one event to one endpoint.'),
    event_id: uuid.describe('The event: also the `webhook-id` header, the same on every attempt.'),
    event_type: z.string().describe('The event type.'),
    status: z
      .enum(deliveryStatuses)
      .describe('`pending` (attempts left), `delivered` (a 2xx answer), `failed` (attempts spent, 410 Gone, or the endpoint disabled).'),
    attempts: z
      .array(
        z.object({
          status_code: z.int().nullable().describe('The HTTP status the receiver answered, or null when it did not answer.'),
          duration_ms: z.int().describe('How long the attempt took.'),
          error: z
            .string()
            .nullable()
            .describe('Why the attempt failed (timeout, refused connection, a non-2xx status, an address the guard refused), or null.'),
          attempted_at: dateTime,
        }),
      )
      .describe('Every attempt so far, oldest first.'),
    next_attempt_at: nullableDateTime.describe('When the next attempt is due while `pending`.'),
    created_at: dateTime,
  })
  .meta({ id: 'WebhookDelivery' });

export const listDeliveriesInput = z.object({
  id: uuid.describe('The webhook endpoint.'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('How many deliveries, newest first (at most 100).'),
});
export const deliveriesOutput = z.object({ deliveries: z.array(webhookDelivery).describe('Newest first.') });
export const retryDeliveryInput = z.object({
  id: uuid.describe('The webhook endpoint.'),
  deliveryId: uuid.describe('The delivery to send again now.'),
});
export const deliveryOutput = z.object({ delivery: webhookDelivery });
