import type { z } from 'zod';
import type { LeadActivityType, leadActivityInput, leadActivityOutput } from '../../schema/lead-activity.ts';
import { insertNew } from '../db/insert-new.ts';
import { notFound } from '../errors/app-error.ts';
import { fieldError } from '../errors/field-error.ts';
import { LeadActivity, type LeadActivityDoc } from './lead-activity.model.ts';
import { Lead } from './lead.models.ts';

/** A fact to record, as the flow that causes it knows it. `id` is derived from the fact when it can happen once. */
export interface LeadActivityEntry {
  id: string;
  workspaceId: string;
  leadId: string;
  type: LeadActivityType;
  at: Date;
  campaignId?: string | null;
  messageId?: string | null;
  step?: number | null;
  variant?: number | null;
  data?: Record<string, unknown>;
}

/**
 * Records facts of leads' stories, many in one insert (the sending engine writes a chunk's with its other writes).
 * An entry whose id is stored already (the flow ran again after a crash) is left as it is.
 */
export async function recordLeadActivity(entries: LeadActivityEntry[]): Promise<void> {
  await insertNew(
    LeadActivity,
    entries.map((entry) => ({
      _id: entry.id,
      workspaceId: entry.workspaceId,
      leadId: entry.leadId,
      type: entry.type,
      at: entry.at,
      campaignId: entry.campaignId ?? null,
      messageId: entry.messageId ?? null,
      step: entry.step ?? null,
      variant: entry.variant ?? null,
      ...(entry.data && { data: entry.data }),
    })),
  );
}

type Cursor = { at: number; id: string };
const encodeCursor = (doc: LeadActivityDoc) => Buffer.from(JSON.stringify([doc.at.getTime(), doc._id])).toString('base64url');

function decodeCursor(cursor: string): Cursor {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];
    if (typeof at === 'number' && Number.isFinite(at) && typeof id === 'string') return { at, id };
  } catch {
    // answered below
  }
  throw fieldError({ field: 'cursor', problem: 'is not a `next_cursor` this API answered' });
}

/** A lead's activity, newest first, a page at a time from the lead's index (404 for another workspace's lead). */
export async function listLeadActivity(
  workspaceId: string,
  input: z.infer<typeof leadActivityInput>,
): Promise<z.infer<typeof leadActivityOutput>> {
  const after = input.cursor === undefined ? null : decodeCursor(input.cursor);
  const filter: Record<string, unknown> = { leadId: input.id };
  if (after) filter.$or = [{ at: { $lt: new Date(after.at) } }, { at: new Date(after.at), _id: { $lt: after.id } }];
  // The lead's ownership and its page read side by side: a page of another workspace's lead is never answered.
  const [owned, docs] = await Promise.all([
    Lead.exists({ _id: input.id, workspaceId }),
    LeadActivity.find(filter)
      .sort({ at: -1, _id: -1 })
      .limit(input.limit + 1)
      .lean<LeadActivityDoc[]>(),
  ]);
  if (!owned) throw notFound('Lead');
  const page = docs.slice(0, input.limit);
  return {
    activity: page.map(toEntry),
    next_cursor: docs.length > input.limit ? encodeCursor(page.at(-1)!) : null,
  };
}

/** An activity entry as the API answers it. */
const toEntry = (doc: LeadActivityDoc): z.infer<typeof leadActivityOutput>['activity'][number] => ({
  id: doc._id,
  type: doc.type,
  at: doc.at.toISOString(),
  campaign_id: doc.campaignId ?? null,
  message_id: doc.messageId ?? null,
  step: doc.step ?? null,
  variant: doc.variant ?? null,
  data: (doc.data as Record<string, unknown> | undefined) ?? {},
});

/** Every activity entry of these leads, newest first (a privacy export: a person's leads hold a few hundred at most). */
export async function activityOfLeads(workspaceId: string, leadIds: string[]) {
  if (!leadIds.length) return [];
  const docs = await LeadActivity.find({ workspaceId, leadId: { $in: leadIds } })
    .sort({ at: -1, _id: -1 })
    .lean<LeadActivityDoc[]>();
  return docs.map(toEntry);
}

/** The activity of deleted (or erased) leads goes with them: how many entries went. */
export async function deleteLeadActivity(workspaceId: string, leadIds: string[]): Promise<number> {
  if (!leadIds.length) return 0;
  return (await LeadActivity.deleteMany({ workspaceId, leadId: { $in: leadIds } })).deletedCount;
}
