import { z } from 'zod';
import { agentRun } from '../../schema/agents.ts';
import { lead } from '../../schema/leads.ts';
import { campaign } from '../../schema/outreach/campaigns.ts';
import { emailClickEvent, emailEvent } from '../../schema/outreach/email-events.ts';
import { inbox } from '../../schema/outreach/inboxes.ts';
import { reply } from '../../schema/outreach/replies.ts';
import { validationJob } from '../../schema/validation.ts';

/**
 * Every domain event the service emits, and its data. Subscribers (jobs/
 * subscribers.ts) react to them; webhook deliveries send them as they are,
 * so each type's data is a public contract.
 */
const scrapeRunEnded = z
  .object({
    runId: z.uuid().describe('The run.'),
    scraperId: z.uuid().describe('Its scraper.'),
    url: z.string().describe('The page it started from.'),
    pages: z.int().describe('Pages fetched and paid for.'),
    creditsCharged: z.int().describe('Crawl credits taken from the balance.'),
    error: z.string().nullable().describe('Why it failed, or why it stopped early; null when it simply finished.'),
    errorCode: z.string().nullable().describe('Machine-readable form of `error`.'),
  })
  .meta({ id: 'ScrapeRunEvent', description: 'A scrape run that ended: a summary (the run itself is GET /api/scrape/runs/{runId}).' });

const endpointOutputChanged = z
  .object({
    endpoint_id: z.uuid().describe('The published endpoint.'),
    slug: z.string().describe('Its slug.'),
    run_id: z.uuid().describe('The run whose result changed its health.'),
    errors: z.array(z.string()).describe('What was wrong with the result (empty on recovery).'),
  })
  .meta({ id: 'EndpointOutputEvent', description: "A published endpoint's results changed health (GET /api/endpoints/{id} has it)." });

export const eventData = {
  'scrape.run.completed': scrapeRunEnded,
  'scrape.run.failed': scrapeRunEnded,
  'scrape.run.cancelled': scrapeRunEnded,
  'endpoint.output.drifted': endpointOutputChanged,
  'endpoint.output.recovered': endpointOutputChanged,
  /** The job as GET /api/leads/validate/{id} answers it. */
  'validation.job.completed': validationJob,
  'validation.job.failed': validationJob,
  /** The run as GET /api/agents/runs answers it (no artifacts: their URLs expire; read the run for them). */
  'agent.run.completed': agentRun,
  'agent.run.failed': agentRun,
  'agent.run.paused': agentRun,
  /** The message as GET /api/outreach/replies lists it, before its sentiment is analysed. */
  'outreach.reply.received': reply,
  'outreach.bounce.received': reply,
  /** The lead as GET /api/leads/{id} answers it. */
  'outreach.lead.unsubscribed': lead,
  /** The campaign as GET /api/outreach/campaigns/{id} answers it. */
  'outreach.campaign.completed': campaign,
  /** The inbox as GET /api/outreach/inboxes lists it. */
  'outreach.inbox.paused': inbox,
  'outreach.email.sent': emailEvent,
  'outreach.email.opened': emailEvent,
  'outreach.email.clicked': emailClickEvent,
  /** Sent by POST /api/webhooks/{id}/test to that endpoint only. */
  'webhook.test': z
    .object({ webhook_id: z.uuid().describe('The endpoint tested.'), message: z.string().describe('A line for people.') })
    .meta({ id: 'WebhookTestEvent', description: 'A test message.' }),
} as const;

export type EventType = keyof typeof eventData;

/** When each event is emitted, for the webhooks section of /openapi.json. */
export const eventDescriptions: Record<EventType, string> = {
  'scrape.run.completed': 'A scrape run finished.',
  'scrape.run.failed': 'A scrape run failed or stopped early.',
  'scrape.run.cancelled': 'A scrape run was cancelled (POST /api/scrape/runs/{runId}/cancel); the items it read are kept.',
  'endpoint.output.drifted':
    "A published endpoint's result failed its output schema, or found no items where the last healthy one had some.",
  'endpoint.output.recovered': 'A drifted published endpoint produced a valid result again.',
  'validation.job.completed': 'An email validation job finished.',
  'validation.job.failed': 'An email validation job failed.',
  'agent.run.completed': 'An agent run finished.',
  'agent.run.failed': 'An agent run failed.',
  'agent.run.paused': 'An agent run paused to ask a question (answer with POST /api/agents/runs/{id}/reply).',
  'outreach.reply.received': 'A reply was read from a mailbox, before its sentiment is analysed.',
  'outreach.bounce.received': 'A bounce was read from a mailbox.',
  'outreach.lead.unsubscribed': 'A lead unsubscribed, by its link or by a reply asking to stop.',
  'outreach.campaign.completed': 'A campaign has nothing left to send.',
  'outreach.inbox.paused': 'The bounce guard paused an inbox.',
  'outreach.email.sent': 'The SMTP server accepted a message (a campaign step or a direct send).',
  'outreach.email.opened': 'A message was opened for the first time (its open pixel loaded; campaigns with `track_opens`).',
  'outreach.email.clicked':
    "A link of a message was clicked for the first time (campaigns with `track_clicks`); `url` is the link's address.",
  'webhook.test': 'Sent by POST /api/webhooks/{id}/test to that endpoint only.',
};
export type EventData<T extends EventType> = z.infer<(typeof eventData)[T]>;
export const eventTypes = Object.keys(eventData) as EventType[];

/**
 * The campaign an event is about, for endpoints limited to campaigns (`campaign_ids`); null for an event that
 * names none (a lead's unsubscription, an inbox paused, a reply that matched no campaign's message).
 */
export function campaignOfEvent(type: EventType, data: unknown): string | null {
  if (type === 'outreach.campaign.completed') return (data as EventData<'outreach.campaign.completed'>).id;
  const named = (data as { campaign_id?: unknown }).campaign_id;
  return typeof named === 'string' ? named : null;
}
