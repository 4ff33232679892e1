import { isDuplicateKey } from '../db/duplicate-key.ts';
import { notFound } from '../errors/app-error.ts';
import { derivedKeys } from './lead-mapper.ts';
import { Lead, type LeadDoc } from './lead.models.ts';
import { leadListFilter } from './lead-filter.ts';

/** The core fields enrichment fills when a lead lacks them. */
export const enrichableFields = ['email', 'title', 'domain', 'phone', 'linkedin_url', 'location'] as const;
export type EnrichableField = (typeof enrichableFields)[number];

export interface LeadToEnrich {
  id: string;
  full_name: string | null;
  company: string | null;
  domain: string | null;
  source_url: string | null;
  /** Its core fields that are empty. */
  missing: EnrichableField[];
  custom: Record<string, string | null>;
}

const maxLeads = 500;
const empty = (value: unknown) => value === null || value === undefined || value === '';

/**
 * The leads an enrichment run works on: the ids given (each must be the
 * workspace's: 404 naming `lead_ids` otherwise), or the first 500 the lead
 * list's filters select, newest first.
 */
export async function leadsForEnrichment(
  workspaceId: string,
  brandId: string | null,
  selection: { lead_ids?: string[]; filter?: { q?: string; status?: string; agent_run_id?: string } },
): Promise<string[]> {
  if (selection.lead_ids?.length) {
    const ids = [...new Set(selection.lead_ids)];
    const found = await Lead.find({ workspaceId, _id: { $in: ids } }, { _id: 1 }).lean<Array<{ _id: string }>>();
    if (found.length !== ids.length) throw notFound('Lead', 'lead_ids');
    return ids;
  }
  const filter = leadListFilter(workspaceId, brandId, (selection.filter ?? {}) as Parameters<typeof leadListFilter>[2]);
  const docs = await Lead.find(filter, { _id: 1 }).sort({ createdAt: -1, _id: -1 }).limit(maxLeads).lean<Array<{ _id: string }>>();
  return docs.map((doc) => doc._id);
}

/** The leads with what each lacks, in the order given. */
export async function leadsToEnrich(workspaceId: string, ids: string[]): Promise<LeadToEnrich[]> {
  const docs = await Lead.find({ workspaceId, _id: { $in: ids } }).lean<LeadDoc[]>();
  const byId = new Map(docs.map((doc) => [doc._id, doc]));
  return ids.flatMap((id) => {
    const doc = byId.get(id);
    if (!doc) return [];
    return [
      {
        id,
        full_name: doc.full_name ?? null,
        company: doc.company ?? null,
        domain: doc.domain ?? null,
        source_url: doc.source_url ?? null,
        missing: enrichableFields.filter((field) => empty(doc[field])),
        custom: doc.custom ?? {},
      },
    ];
  });
}

/**
 * Sets the fields and custom values the lead still lacks, each only while
 * it is empty (a value the user set meanwhile is kept); an email or
 * LinkedIn URL another lead has is left out. Answers what was set.
 */
export async function fillEmptyLeadFields(
  workspaceId: string,
  leadId: string,
  values: Partial<Record<EnrichableField, string>>,
  custom: Record<string, string>,
): Promise<{ fields: string[]; custom: string[] }> {
  const set = { fields: [] as string[], custom: [] as string[] };
  for (const [field, value] of Object.entries(values)) {
    const lead = await Lead.findOne({ _id: leadId, workspaceId }).lean<LeadDoc>();
    if (!lead || !empty(lead[field as EnrichableField])) continue;
    const keys = derivedKeys({ ...lead, [field]: value }, lead._id);
    const derived =
      field === 'email'
        ? { emailKey: keys.emailKey, searchText: keys.searchText }
        : field === 'linkedin_url'
          ? { linkedinKey: keys.linkedinKey }
          : field === 'domain'
            ? { searchText: keys.searchText }
            : {};
    try {
      const written = await Lead.updateOne(
        { _id: leadId, workspaceId, [field]: lead[field as EnrichableField] },
        { $set: { [field]: value, ...derived } },
      );
      if (written.modifiedCount) set.fields.push(field);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
  for (const [key, value] of Object.entries(custom)) {
    const written = await Lead.updateOne(
      { _id: leadId, workspaceId, $or: [{ [`custom.${key}`]: null }, { [`custom.${key}`]: '' }] },
      { $set: { [`custom.${key}`]: value } },
    );
    if (written.modifiedCount) set.custom.push(key);
  }
  return set;
}
