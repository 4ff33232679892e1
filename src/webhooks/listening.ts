import type { StoredEvent } from '../events/events.service.ts';
import { campaignOfEvent } from '../events/event-types.ts';
import { Webhook, type WebhookDoc } from './webhook.models.ts';

/** What deciding who receives an event reads of it. */
export type ListenedEvent = Pick<StoredEvent, 'workspaceId' | 'type' | 'data'>;

/** An endpoint wants an event of a type it subscribes to, unless it is limited to campaigns and the event names another. */
function subscribes(hook: WebhookDoc, event: ListenedEvent): boolean {
  if (event.type === 'webhook.test') return (event.data as { webhook_id: string }).webhook_id === hook._id;
  if (!hook.events.includes('*') && !hook.events.includes(event.type)) return false;
  const campaignId = hook.campaignIds?.length ? campaignOfEvent(event.type, event.data) : null;
  return campaignId === null || hook.campaignIds!.includes(campaignId);
}

/** The endpoints of these events' workspaces that receive events now (enabled), with one read. */
export const enabledEndpointsOf = (events: ListenedEvent[]) =>
  Webhook.find({ workspaceId: { $in: [...new Set(events.map((event) => event.workspaceId))] }, enabled: true }).lean<WebhookDoc[]>();

/** Those of `hooks` (enabledEndpointsOf) that receive `event`: its workspace's, wanting it. */
export const endpointsHearing = (hooks: WebhookDoc[], event: ListenedEvent) =>
  hooks.filter((hook) => hook.workspaceId === event.workspaceId && subscribes(hook, event));

/**
 * The events an enabled endpoint of their workspace would receive now (the fan-out's rule), with one read: for an
 * emitter of events whose only reader is the webhook fan-out, which stores those alone.
 */
export async function eventsListenedTo<Event extends ListenedEvent>(events: Event[]): Promise<Event[]> {
  if (!events.length) return [];
  const hooks = await enabledEndpointsOf(events);
  return events.filter((event) => endpointsHearing(hooks, event).length > 0);
}
