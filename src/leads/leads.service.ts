import type { z } from 'zod';
import {
  coreFields,
  customKey,
  newLead,
  type CoreField,
  type bulkUpdateLeadsInput,
  type listLeadsInput,
  type listLeadsOutput,
  type updateLeadInput,
  type Lead as LeadOut,
} from '../../schema/leads.ts';
import { findOwned } from '../db/find-owned.ts';
import { withKeyLock } from '../db/key-lock.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { planRules } from '../workspaces/plans.ts';
import { getWorkspace } from '../workspaces/workspace.service.ts';
import { listFields, recordUndeclaredKeys } from './lead-fields.service.ts';
import { derivedKeys, toLead } from './lead-mapper.ts';
import { countLeadsWritten, leadCounts, releaseLeadSlots, reserveLeadSlots, storedLeadCount } from './lead-quota.ts';
import { Lead, LeadSearch, type LeadDoc } from './lead.models.ts';

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function listFilter(workspaceId: string, input: z.infer<typeof listLeadsInput>) {
  const filter: Record<string, unknown> = { workspaceId, archivedAt: null };
  if (input.status === 'archived') filter.archivedAt = { $ne: null };
  else if (input.status === 'unsubscribed') filter.unsubscribedAt = { $ne: null };
  else if (input.status) filter.status = input.status;
  if (input.agent_run_id) filter.agentRunId = input.agent_run_id;
  if (input.brand && input.brand !== 'all') filter.brandId = input.brand;
  if (input.q?.trim()) filter.searchText = { $regex: escapeRegex(input.q.trim().toLowerCase()) };
  // The default view, every lead not archived, is what the `stored` counter counts.
  const isDefaultView = Object.keys(filter).length === 2 && filter.archivedAt === null;
  return { filter, isDefaultView };
}

export async function listLeads(workspaceId: string, input: z.infer<typeof listLeadsInput>): Promise<z.infer<typeof listLeadsOutput>> {
  const { filter, isDefaultView } = listFilter(workspaceId, input);
  const [docs, counts, filteredTotal, fields, searches, workspace] = await Promise.all([
    Lead.find(filter).sort({ createdAt: -1, _id: -1 }).skip(input.offset).limit(input.limit).lean<LeadDoc[]>(),
    leadCounts(workspaceId),
    isDefaultView ? undefined : Lead.countDocuments(filter),
    listFields(workspaceId),
    LeadSearch.find({ workspaceId }).sort({ createdAt: -1 }).limit(50).lean(),
    getWorkspace(workspaceId),
  ]);
  return {
    leads: docs.map(toLead),
    total: filteredTotal ?? counts.stored,
    workspaceTotal: counts.total,
    customColumns: fields.map((f) => f.key),
    customFields: fields,
    campaigns: searches.map((s) => ({ id: s._id, label: s.label, count: s.count, created_at: s.createdAt.toISOString() })),
    leadLimit: planRules[workspace.plan].leadLimit,
  };
}

function fieldUpdate(lead: LeadDoc, field: string, rawValue: string | null) {
  const value = rawValue === '' ? null : rawValue;
  if ((coreFields as readonly string[]).includes(field)) {
    const core = field as CoreField;
    if (value !== null) {
      // The same rule as a lead imported with this field.
      const checked = newLead.shape[core].safeParse(value);
      if (!checked.success) throw new AppError('validation_failed', `value: not a valid ${core}`, { field: 'value' });
    }
    return { $set: { [core]: value, ...derivedKeys({ ...lead, [core]: value }, lead._id) } };
  }
  if (!customKey.safeParse(field).success) {
    throw new AppError('validation_failed', 'field: must be a core field or a custom key of letters, digits and underscores', { field: 'field' });
  }
  return value === null ? { $unset: { [`custom.${field}`]: '' } } : { $set: { [`custom.${field}`]: value } };
}

export async function updateLead(workspaceId: string, input: z.infer<typeof updateLeadInput>): Promise<LeadOut> {
  const lead = await findOwned(Lead, input.id, workspaceId);
  if (!lead) throw notFound('Lead');
  const update: { $set: Record<string, unknown>; $unset: Record<string, ''> } = { $set: {}, $unset: {} };
  if (input.field !== undefined) {
    const change = fieldUpdate(lead, input.field, input.value ?? null);
    Object.assign(update.$set, change.$set ?? {});
    Object.assign(update.$unset, change.$unset ?? {});
  }
  if (input.status !== undefined) update.$set.status = input.status;
  if (input.score !== undefined) update.$set.score = input.score;

  await assertNoDuplicate(workspaceId, lead._id, update.$set, input.field);
  if (input.archived !== undefined) await setArchived(workspaceId, [lead._id], input.archived);
  try {
    if (Object.keys(update.$set).length || Object.keys(update.$unset).length) {
      await Lead.updateOne({ _id: lead._id }, update);
    }
  } catch (error) {
    // The unique index caught a concurrent write of the same email or LinkedIn URL.
    if ((error as { code?: number }).code === 11000) throw duplicateError(input.field);
    throw error;
  }
  if (input.field !== undefined && !(coreFields as readonly string[]).includes(input.field)) {
    await recordUndeclaredKeys(workspaceId, [input.field]);
  }
  return toLead((await Lead.findById(lead._id).lean<LeadDoc>())!);
}

const duplicateError = (field: string | undefined) =>
  new AppError('conflict', `value: another lead in this workspace already has this ${field}`, { field: 'value' });

/** A changed email or LinkedIn URL must not collide with another lead's (the dedupe keys). */
async function assertNoDuplicate(workspaceId: string, leadId: string, changes: Record<string, unknown>, field: string | undefined) {
  const keys = [changes.emailKey, changes.linkedinKey].filter((k): k is string => typeof k === 'string' && !k.startsWith('~'));
  if (!keys.length) return;
  const clash = await Lead.exists({ workspaceId, _id: { $ne: leadId }, $or: [{ emailKey: { $in: keys } }, { linkedinKey: { $in: keys } }] });
  if (clash) throw duplicateError(field);
}

/**
 * Archives or restores leads, keeping the stored-lead counter in step:
 * archiving frees a slot; restoring needs one (lead_limit when full).
 */
async function setArchived(workspaceId: string, ids: string[], archived: boolean): Promise<void> {
  await withKeyLock(`leads:${workspaceId}`, async () => {
    if (archived) {
      const result = await Lead.updateMany({ workspaceId, _id: { $in: ids }, archivedAt: null }, { $set: { archivedAt: new Date() } });
      await releaseLeadSlots(workspaceId, result.modifiedCount);
      return;
    }
    const toRestore = await Lead.countDocuments({ workspaceId, _id: { $in: ids }, archivedAt: { $ne: null } });
    const workspace = await getWorkspace(workspaceId);
    await reserveLeadSlots(workspaceId, toRestore, planRules[workspace.plan].leadLimit);
    const result = await Lead.updateMany({ workspaceId, _id: { $in: ids }, archivedAt: { $ne: null } }, { $set: { archivedAt: null } });
    await releaseLeadSlots(workspaceId, toRestore - result.modifiedCount);
  });
}

export async function bulkUpdateLeads(workspaceId: string, input: z.infer<typeof bulkUpdateLeadsInput>): Promise<number> {
  const ids = [...new Set(input.ids)];
  const matched = await Lead.countDocuments({ workspaceId, _id: { $in: ids } });
  if (input.archived !== undefined) await setArchived(workspaceId, ids, input.archived);
  if (input.status !== undefined) await Lead.updateMany({ workspaceId, _id: { $in: ids } }, { $set: { status: input.status } });
  return matched;
}

export async function deleteLeads(workspaceId: string, ids: string[]): Promise<number> {
  return withKeyLock(`leads:${workspaceId}`, async () => {
    const unique = [...new Set(ids)];
    const counted = await Lead.countDocuments({ workspaceId, _id: { $in: unique }, archivedAt: null });
    const result = await Lead.deleteMany({ workspaceId, _id: { $in: unique } });
    await releaseLeadSlots(workspaceId, Math.min(counted, result.deletedCount));
    await countLeadsWritten(workspaceId, -result.deletedCount);
    return result.deletedCount;
  });
}

export async function leadCapacity(workspaceId: string) {
  const workspace = await getWorkspace(workspaceId);
  const limit = planRules[workspace.plan].leadLimit;
  const used = await storedLeadCount(workspaceId);
  return { used, limit, remaining: Math.max(0, limit - used), tier: workspace.plan };
}
