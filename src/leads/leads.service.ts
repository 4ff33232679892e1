import { randomUUID } from 'node:crypto';
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
import { AppError, notFound } from '../errors/app-error.ts';
import { fieldError } from '../errors/field-error.ts';
import { planRules, getWorkspace } from '../workspaces/index.ts';
import { checkCustomValue } from './custom-values.ts';
import { columnsFor, listFields, recordUndeclaredKeys, type ColumnsByKey } from './lead-fields.service.ts';
import { workDomainOf } from '../email-address/address-facts.ts';
import { derivedKeys, toLead } from './lead-mapper.ts';
import { allLeadCount, inLeadCapTurn, leadLimit, leadLimitError, storedLeadCount } from './lead-cap.ts';
import { deleteLeadActivity, recordLeadActivity } from './lead-activity.service.ts';
import { Lead, LeadSearch, type LeadDoc } from './lead.models.ts';
import type { Principal } from '../auth/principal.ts';
import { brandFilter } from '../brands/index.ts';
import { now } from '../clock.ts';
import { checkedCustomFilter, leadListFilter } from './lead-filter.ts';
import { afterCursor, cursorAfter, orderFor, sortFor } from './lead-list-page.ts';

/** The lead list for a credential: leads are pooled per workspace, so without `brand` every brand's leads are listed. */
export async function listLeads(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  input: z.infer<typeof listLeadsInput>,
): Promise<z.infer<typeof listLeadsOutput>> {
  const { workspaceId } = principal;
  const [brand, custom] = await Promise.all([
    brandFilter(principal, input.brand, 'workspace'),
    checkedCustomFilter(workspaceId, input.custom),
  ]);
  const filter = leadListFilter(workspaceId, brand, { ...input, custom });
  const order = orderFor(input);
  const page = { ...filter, ...afterCursor(input.cursor, order, input.offset) };
  const [found, total, workspaceTotal, fields, searches, workspace] = await Promise.all([
    // One more than the page: whether there is a next page.
    Lead.find(page)
      .sort(sortFor(order))
      .skip(input.offset)
      .limit(input.limit + 1)
      .lean<LeadDoc[]>(),
    Lead.countDocuments(filter),
    allLeadCount(workspaceId),
    listFields(workspaceId),
    LeadSearch.find({ workspaceId }).sort({ createdAt: -1 }).limit(50).lean(),
    getWorkspace(workspaceId),
  ]);
  const docs = found.slice(0, input.limit);
  const last = docs[docs.length - 1];
  return {
    leads: docs.map(toLead),
    total,
    workspaceTotal,
    customColumns: fields.map((f) => f.key),
    customFields: fields,
    campaigns: searches.map((s) => ({ id: s._id, label: s.label, count: s.count, created_at: s.createdAt.toISOString() })),
    leadLimit: planRules[workspace.plan].leadLimit,
    next_cursor: found.length > input.limit && last ? cursorAfter(order, last) : null,
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
const emailChanged = (stored: string | null | undefined, next: string | null) =>
  (stored?.trim().toLowerCase() ?? null) !== (next?.trim().toLowerCase() ?? null);

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
    // A lead without a domain takes its new work email's, as an imported one does.
    const set = { [core]: value, ...(core === 'email' && !lead.domain && { domain: workDomainOf(value) }) };
    return {
      $set: {
        ...set,
        ...derivedKeys({ ...lead, ...set }, lead._id),
        ...(core === 'email' && emailChanged(lead.email, value) && unvalidated),
      },
    };
  }
  return value === null ? { $unset: { [`custom.${field}`]: '' } } : { $set: { [`custom.${field}`]: value } };
}

/**
 * A custom field's key and value checked before the lead is read: the value
 * against the declared type of the key's column (one read of the columns,
 * handed on to record the key if it is new), normalized.
 */
async function checkedCustomField(
  workspaceId: string,
  field: string,
  value: string | null,
): Promise<{ value: string | null; columns: ColumnsByKey }> {
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

const archiveState = (lead: LeadDoc) => (lead.archivedAt === null ? { archivedAt: null } : { archivedAt: { $ne: null } });

export async function updateLead(workspaceId: string, input: z.infer<typeof updateLeadInput>): Promise<LeadOut> {
  const { field } = input;
  const custom = field !== undefined && !isCoreField(field) ? await checkedCustomField(workspaceId, field, input.value ?? null) : undefined;
  const lead = await writeLeadChanges(workspaceId, custom ? { ...input, value: custom.value } : input);
  if (custom) await recordUndeclaredKeys(workspaceId, [field!], custom.columns);
  const fields = [
    field,
    input.status !== undefined && 'status',
    input.score !== undefined && 'score',
    input.archived !== undefined && 'archived',
  ];
  await recordUpdates(workspaceId, [{ id: lead._id, fields: fields.filter((name): name is string => typeof name === 'string') }]);
  return toLead(lead);
}

/** A `lead.updated` entry per lead, naming the fields the request changed. */
async function recordUpdates(workspaceId: string, updates: Array<{ id: string; fields: string[] }>): Promise<void> {
  const at = now();
  await recordLeadActivity(
    updates
      .filter((update) => update.fields.length)
      .map(({ id, fields }) => ({ id: randomUUID(), workspaceId, leadId: id, type: 'lead.updated', at, data: { fields } })),
  );
}

/**
 * Stores every change of the request, the archive flag included, or none.
 * The fields and archivedAt go in one update conditional on the archive
 * state read, so a restore racing an archive of the same lead cannot
 * slip past the plan's cap: the write misses, and the lead is read again.
 */
async function writeLeadChanges(workspaceId: string, input: z.infer<typeof updateLeadInput>): Promise<LeadDoc> {
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
    const written = await tryWriteLead(workspaceId, input);
    if (written) return written;
  }
  throw new AppError('conflict', 'The lead was archived or restored concurrently; try again.');
}

/** One attempt: the lead as written, or null when its archive state changed after it was read. */
async function tryWriteLead(workspaceId: string, input: z.infer<typeof updateLeadInput>): Promise<LeadDoc | null> {
  const lead = (await findOwned(Lead, input.id, workspaceId)) as LeadDoc | null;
  if (!lead) throw notFound('Lead');
  const changes = requestedChanges(lead, input);
  await assertNoDuplicate(workspaceId, lead._id, changes.$set, input.field);
  const move = archiveMove(lead, input.archived);
  if (move !== 'restore') return writeIfArchiveUnchanged(lead, changes, move, input.field);
  // A restored lead counts against the cap again: counted and written in the workspace's turn.
  const limit = await leadLimit(workspaceId);
  return inLeadCapTurn(workspaceId, async (stored) => {
    if (stored + 1 > limit) throw leadLimitError(stored, limit, 1);
    return writeIfArchiveUnchanged(lead, changes, move, input.field);
  });
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
async function writeIfArchiveUnchanged(
  lead: LeadDoc,
  changes: LeadChanges,
  move: ArchiveMove,
  field: string | undefined,
): Promise<LeadDoc | null> {
  const $set = move ? { ...changes.$set, archivedAt: move === 'archive' ? now() : null } : changes.$set;
  const update = { ...(Object.keys($set).length && { $set }), ...(Object.keys(changes.$unset).length && { $unset: changes.$unset }) };
  if (!Object.keys(update).length) return lead; // e.g. archiving a lead already archived: nothing to store
  try {
    return await Lead.findOneAndUpdate({ _id: lead._id, ...archiveState(lead) }, update, { returnDocument: 'after' }).lean<LeadDoc>();
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
  const clash = await Lead.exists({
    _id: { $ne: leadId },
    $or: [
      { workspaceId, emailKey: { $in: keys } },
      { workspaceId, linkedinKey: { $in: keys } },
    ],
  });
  if (clash) throw duplicateError(field);
}

/**
 * Sets the status and/or archive state of many leads and answers how many
 * distinct leads needed a change when they were read. Each change is
 * written only where it is still needed, so a concurrent call changing the
 * same leads may count them too, but no lead is changed twice.
 */
export async function bulkUpdateLeads(workspaceId: string, input: z.infer<typeof bulkUpdateLeadsInput>): Promise<number> {
  const ids = [...new Set(input.ids)];
  const leads = await Lead.find({ workspaceId, _id: { $in: ids } }, { status: 1, archivedAt: 1 }).lean<BulkLead[]>();
  // Archive state first: a restore refused with lead_limit changes nothing.
  const moved = input.archived === undefined ? [] : await setArchived(workspaceId, leads, input.archived);
  const restatused = input.status === undefined ? [] : await setStatus(workspaceId, leads, input.status);
  const [archivedIds, statusIds] = [new Set(moved), new Set(restatused)];
  const changed = new Set([...moved, ...restatused]);
  const fieldsOf = (id: string) => [...(archivedIds.has(id) ? ['archived'] : []), ...(statusIds.has(id) ? ['status'] : [])];
  await recordUpdates(
    workspaceId,
    [...changed].map((id) => ({ id, fields: fieldsOf(id) })),
  );
  return changed.size;
}

type BulkLead = Pick<LeadDoc, '_id' | 'status' | 'archivedAt'>;

/**
 * Archives or restores the leads not yet in that state. Restoring counts
 * them against the cap again (lead_limit when they do not all fit, and
 * nothing is restored), in the workspace's turn. Answers the ids it moved.
 */
async function setArchived(workspaceId: string, leads: BulkLead[], archived: boolean): Promise<string[]> {
  const ids = leads.filter((lead) => (lead.archivedAt === null) === archived).map((lead) => lead._id);
  if (!ids.length) return [];
  if (archived) {
    await Lead.updateMany({ workspaceId, _id: { $in: ids }, archivedAt: null }, { $set: { archivedAt: now() } });
    return ids;
  }
  const limit = await leadLimit(workspaceId);
  await inLeadCapTurn(workspaceId, async (stored) => {
    if (stored + ids.length > limit) throw leadLimitError(stored, limit, ids.length);
    await Lead.updateMany({ workspaceId, _id: { $in: ids }, archivedAt: { $ne: null } }, { $set: { archivedAt: null } });
  });
  return ids;
}

/** Sets the status of the leads that have another one; answers their ids. */
async function setStatus(workspaceId: string, leads: BulkLead[], status: LeadDoc['status']): Promise<string[]> {
  const ids = leads.filter((lead) => lead.status !== status).map((lead) => lead._id);
  if (ids.length) await Lead.updateMany({ workspaceId, _id: { $in: ids }, status: { $ne: status } }, { $set: { status } });
  return ids;
}

export async function deleteLeads(workspaceId: string, ids: string[]): Promise<number> {
  const unique = [...new Set(ids)];
  const result = await Lead.deleteMany({ workspaceId, _id: { $in: unique } });
  await deleteLeadActivity(workspaceId, unique);
  return result.deletedCount;
}

export async function leadCapacity(workspaceId: string) {
  const workspace = await getWorkspace(workspaceId);
  const limit = planRules[workspace.plan].leadLimit;
  const used = await storedLeadCount(workspaceId);
  return { used, limit, remaining: Math.max(0, limit - used), tier: workspace.plan };
}
