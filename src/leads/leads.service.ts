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
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { findOwned } from '../db/find-owned.ts';
import { withKeyLock } from '../db/key-lock.ts';
import { updateIfMatches } from '../db/update-if-matches.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { fieldError } from '../errors/field-error.ts';
import { planRules } from '../workspaces/plans.ts';
import { getWorkspace } from '../workspaces/workspace.service.ts';
import { checkCustomValue } from './custom-values.ts';
import { columnsFor, listFields, recordUndeclaredKeys, type ColumnsByKey } from './lead-fields.service.ts';
import { derivedKeys, toLead } from './lead-mapper.ts';
import { countLeadsWritten, leadCounts, releaseLeadSlots, reserveLeadSlots, storedLeadCount } from './lead-quota.ts';
import { Lead, LeadSearch, type LeadDoc } from './lead.models.ts';
import type { Principal } from '../auth/principal.ts';
import { brandFilter } from '../brands/brands.service.ts';
import { now } from '../clock.ts';

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The lead list's query for its filters (also what email validation selects leads with). */
export function leadListFilter(workspaceId: string, brandId: string | null, input: Pick<z.infer<typeof listLeadsInput>, 'q' | 'status' | 'agent_run_id'>) {
  const filter: Record<string, unknown> = { workspaceId, archivedAt: null };
  if (input.status === 'archived') filter.archivedAt = { $ne: null };
  else if (input.status === 'unsubscribed') filter.unsubscribedAt = { $ne: null };
  else if (input.status) filter.status = input.status;
  if (input.agent_run_id) filter.agentRunId = input.agent_run_id;
  if (brandId) filter.brandId = brandId;
  if (input.q?.trim()) filter.searchText = { $regex: escapeRegex(input.q.trim().toLowerCase()) };
  // The default view, every lead not archived, is what the `stored` counter counts.
  const isDefaultView = Object.keys(filter).length === 2 && filter.archivedAt === null;
  return { filter, isDefaultView };
}

/** The lead list for a credential: leads are pooled per workspace, so without `brand` every brand's leads are listed. */
export async function listLeads(principal: Pick<Principal, 'workspaceId' | 'brandId'>, input: z.infer<typeof listLeadsInput>): Promise<z.infer<typeof listLeadsOutput>> {
  const { workspaceId } = principal;
  const { filter, isDefaultView } = leadListFilter(workspaceId, await brandFilter(principal, input.brand, 'workspace'), input);
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

/** One lead of the workspace (archived too); not_found for another workspace's lead or none. */
export async function getLead(workspaceId: string, id: string): Promise<LeadOut> {
  const lead = (await findOwned(Lead, id, workspaceId)) as LeadDoc | null;
  if (!lead) throw notFound('Lead');
  return toLead(lead);
}

/** A lead's validation speaks of the address it was made for: a new address has none. */
const unvalidated = { email_status: null, email_provider: null, email_is_role: null, email_is_free: null, email_validated_at: null };
const emailChanged = (stored: string | null | undefined, next: string | null) => (stored?.trim().toLowerCase() ?? null) !== (next?.trim().toLowerCase() ?? null);

const isCoreField = (field: string) => (coreFields as readonly string[]).includes(field);

/** The change of one field; a custom field's value comes checked against its column by checkedCustomField. */
function fieldUpdate(lead: LeadDoc, field: string, rawValue: string | null) {
  const value = rawValue === '' ? null : rawValue;
  if (isCoreField(field)) {
    const core = field as CoreField;
    if (value !== null) {
      // The same rule as a lead imported with this field.
      const checked = newLead.shape[core].safeParse(value);
      if (!checked.success) throw fieldError({ field: 'value', problem: `not a valid ${core}` });
    }
    return { $set: { [core]: value, ...derivedKeys({ ...lead, [core]: value }, lead._id), ...(core === 'email' && emailChanged(lead.email, value) && unvalidated) } };
  }
  return value === null ? { $unset: { [`custom.${field}`]: '' } } : { $set: { [`custom.${field}`]: value } };
}

/**
 * A custom field's key and value checked before the lead is read: the value
 * against the declared type of the key's column (one read of the columns,
 * handed on to record the key if it is new), normalized.
 */
async function checkedCustomField(workspaceId: string, field: string, value: string | null): Promise<{ value: string | null; columns: ColumnsByKey }> {
  if (!customKey.safeParse(field).success) {
    throw fieldError({ field: 'field', problem: 'must be a core field or a custom key of letters, digits and underscores' });
  }
  const columns = await columnsFor(workspaceId, [field]);
  const checked = checkCustomValue(columns.get(field), value);
  if ('problem' in checked) throw fieldError({ field: 'value', problem: checked.problem });
  return { value: checked.value, columns };
}

type LeadChanges = { $set: Record<string, unknown>; $unset: Record<string, ''> };
type ArchiveMove = 'archive' | 'restore' | undefined;

/** How many times a write is tried again after a concurrent archive or restore of the same lead. */
const WRITE_ATTEMPTS = 3;

const leadLimit = async (workspaceId: string) => planRules[(await getWorkspace(workspaceId)).plan].leadLimit;
const archiveState = (lead: LeadDoc) => (lead.archivedAt === null ? { archivedAt: null } : { archivedAt: { $ne: null } });

export async function updateLead(workspaceId: string, input: z.infer<typeof updateLeadInput>): Promise<LeadOut> {
  const { field } = input;
  const custom = field !== undefined && !isCoreField(field) ? await checkedCustomField(workspaceId, field, input.value ?? null) : undefined;
  const lead = await writeLeadChanges(workspaceId, custom ? { ...input, value: custom.value } : input);
  if (custom) await recordUndeclaredKeys(workspaceId, [field!], custom.columns);
  return toLead(lead);
}

/**
 * Stores every change of the request, the archive flag included, or none.
 * The fields and archivedAt go in one update conditional on the archive
 * state read, so a concurrent archive or restore of the lead cannot make the
 * counter drift: the write misses, and the lead is read again.
 */
async function writeLeadChanges(workspaceId: string, input: z.infer<typeof updateLeadInput>): Promise<LeadDoc> {
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
    // The workspace's archive and counter writers take turns (FerretDB does not compare-and-swap).
    const written = await withKeyLock(`leads:${workspaceId}`, () => tryWriteLead(workspaceId, input));
    if (written) return written;
  }
  throw new AppError('conflict', 'The lead was archived or restored concurrently; try again.');
}

/** One attempt: the lead as written, or null when its archive state changed after it was read. */
async function tryWriteLead(workspaceId: string, input: z.infer<typeof updateLeadInput>): Promise<LeadDoc | null> {
  const lead = (await findOwned(Lead, input.id, workspaceId)) as LeadDoc | null;
  if (!lead) throw notFound('Lead');
  const changes = requestedChanges(lead, input);
  // Checked inside the lock, so on FerretDB two requests cannot both pass it; the unique index backs it on MongoDB.
  await assertNoDuplicate(workspaceId, lead._id, changes.$set, input.field);
  const move = archiveMove(lead, input.archived);
  if (move === 'restore') await reserveLeadSlots(workspaceId, 1, await leadLimit(workspaceId));
  let written: LeadDoc | null = null;
  try {
    written = await writeIfArchiveUnchanged(lead, changes, move, input.field);
  } finally {
    // A restore that did not land gives its slot back; an archive frees one only once it landed.
    if (move === 'restore' && !written) await releaseLeadSlots(workspaceId, 1);
  }
  if (move === 'archive' && written) await releaseLeadSlots(workspaceId, 1);
  return written;
}

/** The request's field, status and score changes to the lead as read. */
function requestedChanges(lead: LeadDoc, input: z.infer<typeof updateLeadInput>): LeadChanges {
  const changes: LeadChanges = { $set: {}, $unset: {} };
  if (input.field !== undefined) {
    const change = fieldUpdate(lead, input.field, input.value ?? null);
    Object.assign(changes.$set, change.$set ?? {});
    Object.assign(changes.$unset, change.$unset ?? {});
  }
  if (input.status !== undefined) changes.$set.status = input.status;
  if (input.score !== undefined) changes.$set.score = input.score;
  return changes;
}

function archiveMove(lead: LeadDoc, archived: boolean | undefined): ArchiveMove {
  if (archived === true && lead.archivedAt === null) return 'archive';
  if (archived === false && lead.archivedAt !== null) return 'restore';
  return undefined;
}

/** The changes and the archive move in one update, applied only while the lead's archive state is the one read (null otherwise). */
async function writeIfArchiveUnchanged(lead: LeadDoc, changes: LeadChanges, move: ArchiveMove, field: string | undefined): Promise<LeadDoc | null> {
  const $set = move ? { ...changes.$set, archivedAt: move === 'archive' ? now() : null } : changes.$set;
  const update = { ...(Object.keys($set).length && { $set }), ...(Object.keys(changes.$unset).length && { $unset: changes.$unset }) };
  if (!Object.keys(update).length) return lead; // e.g. archiving a lead already archived: nothing to store
  try {
    return (await updateIfMatches(Lead, lead._id, archiveState(lead), update)) as LeadDoc | null;
  } catch (error) {
    // The unique index caught a concurrent write of the same email or LinkedIn URL.
    if (isDuplicateKey(error)) throw duplicateError(field);
    throw error;
  }
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
 * Sets the status and/or archive state of many leads and answers how many
 * distinct leads changed. The leads needing a change are read under the
 * workspace lock and each change is written only where it is still needed.
 * On FerretDB every status and archive write of the workspace takes that
 * lock, so the leads read are exactly the leads changed; on MongoDB a
 * concurrent call changing the same leads may count them too, while the
 * counter still follows the writes that landed.
 */
export async function bulkUpdateLeads(workspaceId: string, input: z.infer<typeof bulkUpdateLeadsInput>): Promise<number> {
  const ids = [...new Set(input.ids)];
  return withKeyLock(`leads:${workspaceId}`, async () => {
    const leads = await Lead.find({ workspaceId, _id: { $in: ids } }, { status: 1, archivedAt: 1 }).lean<BulkLead[]>();
    // Archive state first: a restore refused with lead_limit changes nothing.
    const moved = input.archived === undefined ? [] : await setArchived(workspaceId, leads, input.archived);
    const restatused = input.status === undefined ? [] : await setStatus(workspaceId, leads, input.status);
    return new Set([...moved, ...restatused]).size;
  });
}

type BulkLead = Pick<LeadDoc, '_id' | 'status' | 'archivedAt'>;

/**
 * Archives or restores the leads not yet in that state, keeping the counter
 * in step: archiving frees a slot; restoring needs one (lead_limit when
 * full), reserved before any lead is written. Answers the ids it moved.
 */
async function setArchived(workspaceId: string, leads: BulkLead[], archived: boolean): Promise<string[]> {
  const ids = leads.filter((lead) => (lead.archivedAt === null) === archived).map((lead) => lead._id);
  if (!ids.length) return [];
  if (archived) {
    const result = await Lead.updateMany({ workspaceId, _id: { $in: ids }, archivedAt: null }, { $set: { archivedAt: now() } });
    await releaseLeadSlots(workspaceId, result.modifiedCount);
    return ids;
  }
  await reserveLeadSlots(workspaceId, ids.length, await leadLimit(workspaceId));
  const result = await Lead.updateMany({ workspaceId, _id: { $in: ids }, archivedAt: { $ne: null } }, { $set: { archivedAt: null } });
  await releaseLeadSlots(workspaceId, ids.length - result.modifiedCount);
  return ids;
}

/** Sets the status of the leads that have another one; answers their ids. */
async function setStatus(workspaceId: string, leads: BulkLead[], status: LeadDoc['status']): Promise<string[]> {
  const ids = leads.filter((lead) => lead.status !== status).map((lead) => lead._id);
  if (ids.length) await Lead.updateMany({ workspaceId, _id: { $in: ids }, status: { $ne: status } }, { $set: { status } });
  return ids;
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
