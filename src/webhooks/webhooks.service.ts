import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { createWebhookInput, updateWebhookInput, webhook, webhookDelivery } from '../../schema/webhooks.ts';
import { nowMs } from '../clock.ts';
import { findOwned } from '../db/find-owned.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { emitEvent } from '../events/events.service.ts';
import { assertUrlAllowed, UrlNotAllowedError } from '../../outbound/address-guard.ts';
import { addressPolicy } from '../net/address-policy.ts';
import { workspaceCampaignIds } from '../outreach/index.ts';
import { sealSecret } from '../secrets/secret-box.ts';
import { deliveriesOf, deliveryOf, sendAgain } from './deliveries.ts';
import { Webhook, type WebhookDoc } from './webhook.models.ts';

type WebhookOut = z.infer<typeof webhook>;
type DeliveryOut = z.infer<typeof webhookDelivery>;
/** How long a rotated-out secret keeps signing beside the new one. */
const rotationOverlapMs = 24 * 3_600_000;

const toWebhook = (doc: WebhookDoc): WebhookOut => ({
  id: doc._id,
  url: doc.url,
  events: doc.events as WebhookOut['events'],
  campaign_ids: doc.campaignIds?.length ? doc.campaignIds : null,
  enabled: doc.enabled,
  description: doc.description,
  disabled_reason: doc.disabledReason ?? null,
  created_at: doc.createdAt.toISOString(),
});

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** https anywhere the guard allows; plain http only to an address OUTBOUND_ALLOWED_ADDRESSES exempts. 400 naming `url` otherwise. */
async function assertReceivable(url: string): Promise<void> {
  const policy = addressPolicy();
  try {
    const addresses = await assertUrlAllowed(url, policy);
    if (new URL(url).protocol === 'http:' && !addresses.every((address) => policy.allowed.has(address))) {
      throw new UrlNotAllowedError('plain http is allowed only to an address OUTBOUND_ALLOWED_ADDRESSES exempts: use https');
    }
  } catch (error) {
    if (error instanceof UrlNotAllowedError) throw new AppError('url_not_allowed', `url: ${error.message}`, { field: 'url' });
    throw error;
  }
}

/** Every campaign an endpoint is limited to must be the workspace's: 404 naming `campaign_ids` otherwise. */
async function assertCampaigns(workspaceId: string, ids: string[] | null | undefined): Promise<void> {
  if (!ids?.length) return;
  const found = await workspaceCampaignIds(workspaceId, ids);
  const missing = ids.find((id) => !found.has(id));
  if (missing) throw notFound(`Campaign ${missing}`, 'campaign_ids');
}

export async function createWebhook(
  workspaceId: string,
  input: z.infer<typeof createWebhookInput>,
): Promise<{ webhook: WebhookOut; secret: string }> {
  await assertReceivable(input.url);
  await assertCampaigns(workspaceId, input.campaign_ids);
  const secret = newSecret();
  const doc = await Webhook.create({
    workspaceId,
    url: input.url,
    events: input.events,
    ...(input.campaign_ids && { campaignIds: input.campaign_ids }),
    description: input.description,
    secrets: [{ sealed: sealSecret(secret) }],
  });
  return { webhook: toWebhook(doc.toObject()), secret };
}

export async function listWebhooks(workspaceId: string): Promise<WebhookOut[]> {
  const docs = await Webhook.find({ workspaceId }).sort({ createdAt: -1, _id: -1 }).lean<WebhookDoc[]>();
  return docs.map(toWebhook);
}

async function ownedWebhook(workspaceId: string, id: string): Promise<WebhookDoc> {
  const doc = await findOwned(Webhook, id, workspaceId);
  if (!doc) throw notFound('Webhook');
  return doc as WebhookDoc;
}

export const getWebhook = async (workspaceId: string, id: string) => toWebhook(await ownedWebhook(workspaceId, id));

export async function updateWebhook(
  workspaceId: string,
  input: z.infer<typeof updateWebhookInput>,
): Promise<{ webhook: WebhookOut; secret?: string }> {
  const doc = await ownedWebhook(workspaceId, input.id);
  if (input.url) await assertReceivable(input.url);
  await assertCampaigns(workspaceId, input.campaign_ids);
  const set: Record<string, unknown> = {};
  const unset: Record<string, 1> = {};
  if (input.campaign_ids) set.campaignIds = input.campaign_ids;
  else if (input.campaign_ids === null) unset.campaignIds = 1;
  if (input.url) set.url = input.url;
  if (input.events) set.events = input.events;
  if (input.description !== undefined) set.description = input.description;
  if (input.enabled !== undefined)
    Object.assign(set, { enabled: input.enabled, disabledReason: input.enabled ? null : 'manual', failingSince: null });
  let secret: string | undefined;
  if (input.rotate_secret) {
    secret = newSecret();
    const now = nowMs();
    const kept = doc.secrets
      .filter((s) => !s.expiresAt || s.expiresAt.getTime() > now)
      .map((s) => ({ sealed: s.sealed, expiresAt: s.expiresAt ?? new Date(now + rotationOverlapMs) }));
    set.secrets = [{ sealed: sealSecret(secret), expiresAt: null }, ...kept];
  }
  const updated = await Webhook.findByIdAndUpdate(
    doc._id,
    { $set: set, ...(Object.keys(unset).length && { $unset: unset }) },
    { returnDocument: 'after' },
  ).lean<WebhookDoc>();
  return { webhook: toWebhook(updated!), ...(secret && { secret }) };
}

export async function deleteWebhook(workspaceId: string, id: string): Promise<void> {
  await ownedWebhook(workspaceId, id);
  await Webhook.deleteOne({ _id: id });
}

/** Sends a `webhook.test` event to this endpoint only, and answers its delivery. */
export async function testWebhook(workspaceId: string, id: string): Promise<DeliveryOut> {
  const doc = await ownedWebhook(workspaceId, id);
  const eventId = await emitEvent(
    workspaceId,
    'webhook.test',
    { webhook_id: doc._id, message: 'A test event sent from the API.' },
    `${doc._id}:${nowMs()}:${randomBytes(4).toString('hex')}`,
  );
  return deliveryOf(doc._id, eventId);
}

export async function listDeliveries(workspaceId: string, id: string, limit: number): Promise<DeliveryOut[]> {
  await ownedWebhook(workspaceId, id);
  return deliveriesOf(id, limit);
}

export async function retryDelivery(workspaceId: string, id: string, deliveryId: string): Promise<DeliveryOut> {
  await ownedWebhook(workspaceId, id);
  return sendAgain(id, deliveryId);
}
