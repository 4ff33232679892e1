import type { z } from 'zod';
import { v7 as timeOrderedId } from 'uuid';
import { coreFields, type CoreField, type importLeadsInput, type importLeadsOutput, type NewLead } from '../../schema/leads.ts';
import { brandForWrite } from '../brands/index.ts';
import { fieldError } from '../errors/field-error.ts';
import { columnsFor, recordUndeclaredKeys, type ColumnsByKey } from './lead-fields.service.ts';
import { checkCustomValue } from './custom-values.ts';
import { workDomainOf } from '../email-address/address-facts.ts';
import { derivedKeys, toLead } from './lead-mapper.ts';
import { inLeadCapTurn, leadLimit, leadLimitError } from './lead-cap.ts';
import { recordLeadActivity } from './lead-activity.service.ts';
import { Lead, LeadSearch, type LeadDoc } from './lead.models.ts';
import { insertNew } from '../db/insert-new.ts';
import { databaseFault, storageFullError } from '../errors/database-faults.ts';
import { now } from '../clock.ts';

interface Origin {
  agentRunId?: string;
  /** Ids for the leads, in input order (an agent step that runs again then inserts the same ids: duplicates, not copies). */
  leadIds?: string[];
  /** The past lead search the leads are counted in, kept across calls (an agent run's), instead of one per call. */
  search?: { id: string; label: string };
  /** The credential's brand, where leads go unless the import names one (null: the workspace's default). */
  brandId?: string | null;
  /** The CSV import storing them (its rows past the plan's cap are stored as far as they fit, the rest refused). */
  csvImportId?: string;
}

/** What storeLeads did: the API's answer, and the leads left out because the plan's cap was reached (CSV imports). */
interface Stored {
  output: z.infer<typeof importLeadsOutput>;
  /** Ids (origin.leadIds) of the new leads past the cap, not stored. */
  overCap: string[];
}

type Candidate = { _id: string; lead: NewLead; emailKey: string; linkedinKey: string; searchText: string };

/**
 * Stores new leads, skipping ones whose email (case-insensitive) or
 * LinkedIn URL the workspace already has. Either every new lead fits under
 * the plan's cap and is stored, or the call fails with lead_limit and
 * stores nothing; the count and the insert are one step (inLeadCapTurn).
 *
 * A custom value not of its declared column's type refuses the whole call
 * (400 naming every such value) before anything is written.
 *
 * Leads already stored are rejected by the unique indexes on the dedupe
 * keys as they are inserted, so a normal import reads no stored leads.
 * Only when the batch might not fit are the stored duplicates looked up
 * first, so that duplicates never cause a false lead_limit.
 *
 * A disk that fills during the import fails it with storage_full listing
 * the leads stored before it did (`stored`: their place in the request and
 * their id): without transactions they cannot be undone, nor deleted on a
 * full disk. Sent again once space is freed, they count as duplicates.
 */
export async function importLeads(
  workspaceId: string,
  input: z.infer<typeof importLeadsInput>,
  origin: Origin = {},
): Promise<z.infer<typeof importLeadsOutput>> {
  // Chosen up front, so that the leads stored before a failure can be found.
  return (await createLeads(workspaceId, input, origin)).output;
}

/**
 * The one path every new lead is stored by (the API's import, an agent run's leads, a CSV import's rows): with a
 * `csvImportId`, leads past the plan's cap are left out and named instead of failing the call.
 */
export async function createLeads(workspaceId: string, input: z.infer<typeof importLeadsInput>, origin: Origin = {}): Promise<Stored> {
  const leadIds = input.leads.map((_, index) => origin.leadIds?.[index] ?? timeOrderedId());
  try {
    return await storeLeads(workspaceId, input, { ...origin, leadIds });
  } catch (error) {
    if (databaseFault(error) !== 'storage_full') throw error;
    throw await storedBeforeFull(leadIds, error);
  }
}

/** The storage_full answer to an import the disk filled under: which of its leads are stored. */
async function storedBeforeFull(leadIds: string[], cause: unknown) {
  const found = new Set((await Lead.find({ _id: { $in: leadIds } }, { _id: 1 }).lean()).map((doc) => doc._id));
  const stored = leadIds.flatMap((id, index) => (found.has(id) ? [{ index, id }] : []));
  return storageFullError(
    `${stored.length} of ${leadIds.length} leads were stored before it filled (\`stored\` lists them by their place in the request)`,
    { stored },
    cause,
  );
}

async function storeLeads(
  workspaceId: string,
  input: z.infer<typeof importLeadsInput>,
  origin: Origin & { leadIds: string[] },
): Promise<Stored> {
  const customKeys = columnKeys(input.leads);
  const columns = await columnsFor(workspaceId, customKeys);
  const leads = withCheckedCustomValues(input.leads, columns);
  const limit = await leadLimit(workspaceId);
  const brandId = await brandForWrite({ workspaceId, brandId: origin.brandId ?? null }, input.brand_id);
  const candidates = uniqueWithinBatch(leads, origin.leadIds);

  const { search, docs, inserted, overCap } = await inLeadCapTurn(workspaceId, async (stored) => {
    let fitting = candidates;
    let overCap: string[] = [];
    if (stored + candidates.length > limit) {
      const fresh = await withoutStored(workspaceId, candidates);
      if (stored + fresh.length > limit && !origin.csvImportId) throw leadLimitError(stored, limit, fresh.length);
      overCap = fresh.slice(Math.max(0, limit - stored)).map((candidate) => candidate._id);
      const left = new Set(overCap);
      fitting = candidates.filter((candidate) => !left.has(candidate._id));
    }
    const search = origin.search
      ? { _id: origin.search.id }
      : await LeadSearch.create({ workspaceId, label: input.name ?? `Import ${now().toISOString().slice(0, 10)}`, count: 0 });
    const storedAt = now();
    const docs = fitting.map(({ lead, ...keys }) =>
      toDocument({ workspaceId, brandId, leadSearchId: search._id, storedAt, origin }, lead, keys),
    );
    return { search, docs, inserted: await insertIgnoringDuplicates(docs), overCap };
  });
  if (origin.search) {
    await LeadSearch.updateOne(
      { _id: search._id },
      { $setOnInsert: { workspaceId, label: origin.search.label }, $inc: { count: inserted.length } },
      { upsert: true },
    );
  } else {
    await LeadSearch.updateOne({ _id: search._id }, { $set: { count: inserted.length } });
  }
  await recordUndeclaredKeys(workspaceId, customKeys, columns);

  const insertedIds = new Set(inserted);
  const stored = docs.filter((doc) => insertedIds.has(doc._id));
  await recordCreated(workspaceId, stored, origin);
  return {
    output: { created: stored.length, duplicates: leads.length - stored.length - overCap.length, leads: stored.map(toLead) },
    overCap,
  };
}

const columnKeys = (leads: NewLead[]) => new Set(leads.flatMap((lead) => Object.keys(lead.custom ?? {})));

/** The leads with their custom values checked against the declared columns and normalized; any misfit is a 400 listing them all. */
function withCheckedCustomValues(leads: NewLead[], columns: ColumnsByKey): NewLead[] {
  if (![...columns.values()].some((column) => column.declared)) return leads;
  const problems: Array<{ field: string; problem: string }> = [];
  const checked = leads.map((lead, index) => {
    if (!lead.custom) return lead;
    const custom: Record<string, string | null> = {};
    for (const [key, value] of Object.entries(lead.custom)) {
      const result = checkCustomValue(columns.get(key), value);
      if ('problem' in result) problems.push({ field: `leads.${index}.custom.${key}`, problem: result.problem });
      else custom[key] = result.value;
    }
    return { ...lead, custom };
  });
  const [first, ...more] = problems;
  if (first) throw fieldError(first, ...more);
  return checked;
}

/** Drops leads repeating an earlier lead's email or LinkedIn URL in the same batch. */
function uniqueWithinBatch(leads: NewLead[], ids: string[]): Candidate[] {
  const seen = new Set<string>();
  const unique: Candidate[] = [];
  for (const [index, given] of leads.entries()) {
    const _id = ids[index]!;
    // A work address names the company: its domain is the lead's when none was given.
    const lead = given.domain ? given : { ...given, domain: workDomainOf(given.email) ?? given.domain };
    const keys = derivedKeys(lead, _id);
    if (seen.has(keys.emailKey) || seen.has(keys.linkedinKey)) continue;
    seen.add(keys.emailKey).add(keys.linkedinKey);
    unique.push({ _id, lead, ...keys });
  }
  return unique;
}

/**
 * Which of these leads (by place) a CSV import itself stored before: a batch its last worker stored but died before
 * recording, met again on the next start as duplicates of its own leads. Their `lead.created` activity is recorded
 * (again: the dead worker may have died before it; entry ids make a second write none).
 */
export async function ownLeadsMetAgain(workspaceId: string, importId: string, leads: NewLead[]): Promise<Set<number>> {
  if (!leads.length) return new Set();
  const keys = leads.map((lead, index) => derivedKeys(lead, `none-${index}`));
  const mine = await storedWithKeys(workspaceId, keys, { leadSearchId: importId });
  if (!mine.length) return new Set();
  await recordCreated(workspaceId, mine, { csvImportId: importId });
  const found = new Set(mine.flatMap((doc) => [doc.emailKey, doc.linkedinKey]));
  return new Set(keys.flatMap((k, index) => (found.has(k.emailKey) || found.has(k.linkedinKey) ? [index] : [])));
}

/** The leads' `lead.created` activity, with how they came (API, import, agent); entry ids make a second write none. */
async function recordCreated(workspaceId: string, docs: Array<Pick<LeadDoc, '_id' | 'createdAt'>>, origin: Origin): Promise<void> {
  const source = origin.csvImportId ? 'import' : origin.agentRunId ? 'agent' : 'api';
  await recordLeadActivity(
    docs.map((doc) => ({
      id: `${doc._id}:created`,
      workspaceId,
      leadId: doc._id,
      type: 'lead.created',
      at: doc.createdAt,
      data: {
        source,
        ...(origin.agentRunId && { agent_run_id: origin.agentRunId }),
        ...(origin.csvImportId && { import_id: origin.csvImportId }),
      },
    })),
  );
}

async function withoutStored(workspaceId: string, candidates: Candidate[]): Promise<Candidate[]> {
  const stored = new Set((await storedWithKeys(workspaceId, candidates)).flatMap((doc) => [doc.emailKey, doc.linkedinKey]));
  return candidates.filter((c) => !stored.has(c.emailKey) && !stored.has(c.linkedinKey));
}

/** The workspace's stored leads (narrowed by `also`) that hold one of these email or LinkedIn dedupe keys. */
function storedWithKeys(workspaceId: string, keys: Array<Pick<Candidate, 'emailKey' | 'linkedinKey'>>, also: Record<string, unknown> = {}) {
  const emailKeys = keys.map((k) => k.emailKey).filter((k) => k.startsWith('e:'));
  const linkedinKeys = keys.map((k) => k.linkedinKey).filter((k) => k.startsWith('l:'));
  return Lead.find(
    {
      ...also,
      $or: [
        { workspaceId, emailKey: { $in: emailKeys } },
        { workspaceId, linkedinKey: { $in: linkedinKeys } },
      ],
    },
    { emailKey: 1, linkedinKey: 1, createdAt: 1 },
  ).lean<Array<Pick<LeadDoc, '_id' | 'emailKey' | 'linkedinKey' | 'createdAt'>>>();
}

interface Placement {
  workspaceId: string;
  brandId: string;
  leadSearchId: string;
  storedAt: Date;
  origin: Origin;
}

/** The complete stored document, so the response is built from what was written without reading it back. */
function toDocument(placement: Placement, lead: NewLead, keys: Omit<Candidate, 'lead'>): LeadDoc {
  const { custom, score, status } = lead;
  return {
    ...(Object.fromEntries(coreFields.map((field) => [field, lead[field] ?? null])) as Record<CoreField, string | null>),
    ...keys,
    workspaceId: placement.workspaceId,
    brandId: placement.brandId,
    custom: custom ?? {},
    score: score ?? null,
    status: status ?? 'new',
    email_status: null,
    email_provider: null,
    email_is_role: null,
    email_is_free: null,
    email_validated_at: null,
    unsubscribedAt: null,
    archivedAt: null,
    agentRunId: placement.origin.agentRunId ?? null,
    leadSearchId: placement.leadSearchId,
    createdAt: placement.storedAt,
    updatedAt: placement.storedAt,
  };
}

/**
 * Inserts all it can, with one insert and no mongoose document each (the documents are built whole by toDocument); a
 * lead whose email or LinkedIn URL is already stored fails the unique index and counts as a duplicate.
 */
async function insertIgnoringDuplicates(docs: LeadDoc[]): Promise<string[]> {
  const stored = await insertNew(Lead, docs);
  return docs.filter((doc) => stored.has(doc._id)).map((doc) => doc._id);
}
