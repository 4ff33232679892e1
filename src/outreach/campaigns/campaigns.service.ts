import { emitEvent } from '../../events/events.service.ts';
import type { z } from 'zod';
import type { CampaignOut, createCampaignInput, updateCampaignInput } from '../../../schema/outreach/campaigns.ts';
import type { Principal } from '../../auth/principal.ts';
import { brandFilter, brandForWrite } from '../../brands/index.ts';
import { now } from '../../clock.ts';
import { findOwned } from '../../db/find-owned.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { fieldError } from '../../errors/field-error.ts';
import { inboxesForSending } from '../inboxes/inbox-sending.service.ts';
import { getSequenceForSending } from '../sequences/sequences.service.ts';
import { activeEnrollmentCount, campaignProgress } from './campaign-progress.ts';
import { Campaign, type CampaignDoc } from '../campaign-record/campaign.model.ts';

type CreateInput = z.infer<typeof createCampaignInput>;
type UpdateInput = z.infer<typeof updateCampaignInput>;

export async function toCampaign(doc: CampaignDoc): Promise<CampaignOut> {
  return {
    id: doc._id,
    name: doc.name,
    status: doc.status,
    sequence_id: doc.sequenceId,
    inbox_ids: doc.inboxIds,
    reply_to: doc.replyTo ?? null,
    daily_limit: doc.dailyLimit,
    schedule: {
      timezone: doc.schedule.timezone,
      days: doc.schedule.days,
      start_hour: doc.schedule.startHour,
      end_hour: doc.schedule.endHour,
    },
    priority: doc.priority,
    track_opens: doc.trackOpens,
    track_clicks: doc.trackClicks ?? false,
    brand_id: doc.brandId,
    progress: await campaignProgress(doc),
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}

const toSchedule = (schedule: CreateInput['schedule']) => ({
  timezone: schedule.timezone,
  days: schedule.days,
  startHour: schedule.start_hour,
  endHour: schedule.end_hour,
});

/** The sequence and the inboxes must be the workspace's (404 naming the field) and the campaign's brand's (400 naming it). */
async function assertParts(workspaceId: string, brandId: string, sequenceId: string, inboxIds: string[], inboxField: string) {
  const sequence = await getSequenceForSending(workspaceId, sequenceId).catch(() => {
    throw notFound('Sequence', 'sequence_id');
  });
  if (sequence.brand_id !== brandId)
    throw fieldError({ field: 'sequence_id', problem: 'the sequence belongs to another brand than the campaign' });
  const inboxes = await inboxesForSending(workspaceId, inboxIds);
  if (inboxes.length !== inboxIds.length) throw notFound('Inbox', inboxField);
  const foreign = inboxes.find((inbox) => inbox.brandId !== brandId);
  if (foreign) throw fieldError({ field: inboxField, problem: `inbox ${foreign.id} belongs to another brand than the campaign` });
}

export async function createCampaign(principal: Principal, input: CreateInput): Promise<CampaignOut> {
  const inboxIds = [...new Set(input.inbox_ids ?? [input.smtp_config_id!])];
  const brandId = await brandForWrite(principal, input.brand_id);
  await assertParts(principal.workspaceId, brandId, input.sequence_id, inboxIds, input.inbox_ids ? 'inbox_ids' : 'smtp_config_id');
  const doc = await Campaign.create({
    workspaceId: principal.workspaceId,
    brandId,
    name: input.name,
    sequenceId: input.sequence_id,
    inboxIds,
    replyTo: input.reply_to ?? null,
    dailyLimit: input.daily_limit,
    schedule: toSchedule(input.schedule),
    priority: input.priority,
    trackOpens: input.track_opens,
    trackClicks: input.track_clicks,
  });
  return toCampaign(doc.toObject() as CampaignDoc);
}

export async function getCampaignDoc(workspaceId: string, id: string): Promise<CampaignDoc> {
  const doc = (await findOwned(Campaign, id, workspaceId)) as CampaignDoc | null;
  if (!doc) throw notFound('Campaign');
  return doc;
}

export async function listCampaigns(principal: Principal, brand: string | undefined): Promise<CampaignOut[]> {
  const brandId = await brandFilter(principal, brand, 'credential');
  const docs = await Campaign.find({ workspaceId: principal.workspaceId, ...(brandId && { brandId }) })
    .sort({ createdAt: -1, _id: 1 })
    .lean<CampaignDoc[]>();
  return Promise.all(docs.map(toCampaign));
}

/** Enrollments still going in the workspace's (or a brand's) campaigns, archived ones left out (they send nothing more). */
export async function activeEnrollmentsIn(workspaceId: string, brandId: string | null): Promise<number> {
  const docs = await Campaign.find({ workspaceId, ...(brandId && { brandId }), status: { $ne: 'archived' } }, { _id: 1 }).lean<
    CampaignDoc[]
  >();
  return activeEnrollmentCount(docs.map((doc) => doc._id));
}

/** Which statuses a PATCH may move a campaign to, from each. */
const transitions: Record<CampaignDoc['status'], ReadonlyArray<UpdateInput['status']>> = {
  draft: ['active', 'archived'],
  active: ['paused', 'archived'],
  paused: ['active', 'archived'],
  completed: ['archived'],
  archived: [],
};

export async function updateCampaign(workspaceId: string, input: UpdateInput): Promise<CampaignOut> {
  const current = await getCampaignDoc(workspaceId, input.id);
  const changes: Record<string, unknown> = {};
  if (input.status !== undefined && input.status !== current.status) {
    if (!transitions[current.status].includes(input.status)) {
      throw new AppError('conflict', `status: a ${current.status} campaign cannot become ${input.status}`, {
        field: 'status',
        status: current.status,
      });
    }
    changes.status = input.status;
    if (input.status === 'active' && !current.startedAt) changes.startedAt = now();
  }
  if (input.name !== undefined) changes.name = input.name;
  if (input.reply_to !== undefined) changes.replyTo = input.reply_to;
  if (input.daily_limit !== undefined) changes.dailyLimit = input.daily_limit;
  if (input.schedule !== undefined) changes.schedule = toSchedule(input.schedule);
  if (input.priority !== undefined) changes.priority = input.priority;
  const updated = await Campaign.findByIdAndUpdate(current._id, { $set: changes }, { returnDocument: 'after' }).lean<CampaignDoc>();
  return toCampaign(updated!);
}

/** Which of these ids are campaigns of the workspace. */
export async function workspaceCampaignIds(workspaceId: string, ids: string[]): Promise<Set<string>> {
  const docs = await Campaign.find({ workspaceId, _id: { $in: ids } }, { _id: 1 }).lean<Array<{ _id: string }>>();
  return new Set(docs.map((doc) => doc._id));
}

/** Active campaigns, highest priority first (the engine's order). */
export const activeCampaigns = () => Campaign.find({ status: 'active' }).sort({ priority: -1, createdAt: 1 }).lean<CampaignDoc[]>();

/**
 * An active campaign with nothing left to send is completed (a paused one stays paused), then announced. One whose
 * previous completion's event is still unstored waits for it (announcePendingCompletions), so no mark is written over.
 */
export async function completeCampaign(campaignId: string): Promise<void> {
  const at = now();
  const completed = await Campaign.findOneAndUpdate(
    { _id: campaignId, status: 'active', completionEventPendingAt: null },
    { $set: { status: 'completed', completionEventPendingAt: at } },
    { returnDocument: 'after' },
  ).lean<CampaignDoc>();
  if (completed) await announceCompletion(completed, at);
}

/**
 * Stores the event of the campaign's completion at `at` (its id derived from the campaign and that time, so storing it
 * again finds it), then clears the completion's mark.
 */
async function announceCompletion(campaign: CampaignDoc, at: Date): Promise<void> {
  await emitEvent(campaign.workspaceId, 'outreach.campaign.completed', await toCampaign(campaign), `${campaign._id}:${at.getTime()}`);
  await Campaign.updateOne(
    { _id: campaign._id, completionEventPendingAt: at },
    { $unset: { completionEventPendingAt: 1 } },
    { timestamps: false },
  );
}

/**
 * Stores the events of completions whose process died before storing them
 * (the sending engine's passes call this). Safe to run anywhere at once.
 */
export async function announcePendingCompletions(limit = 100): Promise<void> {
  const pending = await Campaign.find({ completionEventPendingAt: { $gt: new Date(0) } })
    .limit(limit)
    .lean<CampaignDoc[]>();
  for (const campaign of pending) await announceCompletion(campaign, campaign.completionEventPendingAt!);
}
