import { coreFields, type CoreField, type NewLead } from '../../schema/leads.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { workDomainOf } from '../email-address/address-facts.ts';
import { derivedKeys } from './lead-mapper.ts';
import { Lead, type LeadDoc } from './lead.models.ts';

const empty = (value: unknown) => value === null || value === undefined || value === '';
const isEmptyCondition = { $in: [null, ''] };

/**
 * `on_duplicate=update`: each row's values fill the empty fields of the stored lead it duplicates (found by its
 * email, else its LinkedIn URL, as the import decides duplicates); a value already there is never overwritten.
 * Each lead is written once, only while those fields are still empty (a value set meanwhile keeps the write from
 * landing). An email or LinkedIn URL another lead has is not filled in. Answers, per row, whether it filled any.
 */
export async function fillDuplicates(workspaceId: string, rows: NewLead[]): Promise<boolean[]> {
  const keyed = rows.map((lead) => derivedKeys(lead, ''));
  const emailKeys = keyed.map((k) => k.emailKey).filter((k) => k.startsWith('e:'));
  const linkedinKeys = keyed.map((k) => k.linkedinKey).filter((k) => k.startsWith('l:'));
  const stored = await Lead.find({
    $or: [
      { workspaceId, emailKey: { $in: emailKeys } },
      { workspaceId, linkedinKey: { $in: linkedinKeys } },
    ],
  }).lean<LeadDoc[]>();
  const byKey = new Map<string, LeadDoc>();
  for (const doc of stored) byKey.set(doc.emailKey, doc).set(doc.linkedinKey, doc);
  const filled: boolean[] = [];
  for (const [index, row] of rows.entries()) {
    const lead = byKey.get(keyed[index]!.emailKey) ?? byKey.get(keyed[index]!.linkedinKey);
    filled.push(lead ? await fillEmpty(lead, row, byKey) : false);
  }
  return filled;
}

async function fillEmpty(lead: LeadDoc, row: NewLead, byKey: Map<string, LeadDoc>): Promise<boolean> {
  const core = coreFields.filter((field) => !empty(row[field]) && empty(lead[field]));
  const custom = Object.entries(row.custom ?? {}).filter(([key, value]) => !empty(value) && empty(lead.custom?.[key]));
  if (!core.length && !custom.length) return false;
  const values = Object.fromEntries(core.map((field) => [field, row[field]!])) as Partial<Record<CoreField, string>>;
  if (values.email && !lead.domain && !values.domain) values.domain = workDomainOf(values.email) ?? undefined;
  const merged = { ...lead, ...values };
  const keys = derivedKeys(merged, lead._id);
  const $set: Record<string, unknown> = { ...values, searchText: keys.searchText };
  if (values.email) $set.emailKey = keys.emailKey;
  if (values.linkedin_url) $set.linkedinKey = keys.linkedinKey;
  for (const [key, value] of custom) $set[`custom.${key}`] = value;
  const stillEmpty = Object.fromEntries([
    ...Object.keys(values).map((field) => [field, isEmptyCondition]),
    ...custom.map(([key]) => [`custom.${key}`, isEmptyCondition]),
  ]);
  try {
    const written = await Lead.updateOne({ _id: lead._id, workspaceId: lead.workspaceId, ...stillEmpty }, { $set });
    if (!written.modifiedCount) return false;
  } catch (error) {
    // The row's email or LinkedIn URL is another lead's: this one is left as it was.
    if (isDuplicateKey(error)) return false;
    throw error;
  }
  // A later row of the file duplicating this lead sees what this one filled.
  Object.assign(lead, values, { custom: { ...lead.custom, ...Object.fromEntries(custom) } });
  byKey.set(keys.emailKey, lead).set(keys.linkedinKey, lead);
  return true;
}
