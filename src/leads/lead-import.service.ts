import { v7 as timeOrderedId } from 'uuid';
import type { z } from 'zod';
import type { importLeadsInput, importLeadsOutput, NewLead } from '../../schema/leads.ts';
import { withKeyLock } from '../db/key-lock.ts';
import { planRules } from '../workspaces/plans.ts';
import { getWorkspace, resolveBrandId } from '../workspaces/workspace.service.ts';
import { recordUndeclaredKeys } from './lead-fields.service.ts';
import { derivedKeys, toLead } from './lead-mapper.ts';
import { releaseLeadSlots, reserveLeadSlots } from './lead-quota.ts';
import { Lead, LeadSearch, type LeadDoc } from './lead.models.ts';

interface Origin {
  agentRunId?: string;
}

/**
 * Stores new leads, skipping ones whose email (case-insensitive) or
 * LinkedIn URL the workspace already has. Either every new lead fits under
 * the plan's cap and is stored, or the call fails with lead_limit and
 * stores nothing.
 */
export async function importLeads(
  workspaceId: string,
  input: z.infer<typeof importLeadsInput>,
  origin: Origin = {},
): Promise<z.infer<typeof importLeadsOutput>> {
  const workspace = await getWorkspace(workspaceId);
  const brandId = await resolveBrandId(workspaceId, input.brand_id);
  const candidates = input.leads.map((lead) => {
    const _id = timeOrderedId();
    return { _id, lead, ...derivedKeys(lead, _id) };
  });

  const emailKeys = candidates.map((c) => c.emailKey).filter((k) => k.startsWith('e:'));
  const linkedinKeys = candidates.map((c) => c.linkedinKey).filter((k) => k.startsWith('l:'));
  const existing = await Lead.find(
    { workspaceId, $or: [{ emailKey: { $in: emailKeys } }, { linkedinKey: { $in: linkedinKeys } }] },
    { emailKey: 1, linkedinKey: 1 },
  ).lean();
  const seen = new Set(existing.flatMap((doc) => [doc.emailKey, doc.linkedinKey]));
  const fresh = candidates.filter((c) => {
    if (seen.has(c.emailKey) || seen.has(c.linkedinKey)) return false;
    seen.add(c.emailKey).add(c.linkedinKey);
    return true;
  });

  const search = await withKeyLock(`leads:${workspaceId}`, async () => {
    await reserveLeadSlots(workspaceId, fresh.length, planRules[workspace.plan].leadLimit);
    return LeadSearch.create({ workspaceId, label: input.name ?? `Import ${new Date().toISOString().slice(0, 10)}`, count: 0 });
  });

  const docs = fresh.map(({ lead, ...keys }) => toDocument(workspaceId, brandId, lead, keys, search._id, origin));
  const inserted = await insertIgnoringDuplicates(docs);
  await releaseLeadSlots(workspaceId, fresh.length - inserted.length);
  await LeadSearch.updateOne({ _id: search._id }, { $set: { count: inserted.length } });
  await recordUndeclaredKeys(workspaceId, input.leads.flatMap((lead) => Object.keys(lead.custom ?? {})));

  const stored = await Lead.find({ _id: { $in: inserted } }).sort({ createdAt: 1, _id: 1 }).lean<LeadDoc[]>();
  return { created: stored.length, duplicates: input.leads.length - stored.length, leads: stored.map(toLead) };
}

function toDocument(
  workspaceId: string,
  brandId: string,
  lead: NewLead,
  keys: { _id: string; emailKey: string; linkedinKey: string; searchText: string },
  leadSearchId: string,
  origin: Origin,
) {
  const { custom, score, status, ...core } = lead;
  return {
    ...core,
    ...keys,
    workspaceId,
    brandId,
    custom: custom ?? {},
    score: score ?? null,
    status: status ?? 'new',
    agentRunId: origin.agentRunId ?? null,
    leadSearchId,
  };
}

/** Inserts all it can; a concurrent import may have stored the same email first (unique index), which is a duplicate, not an error. */
async function insertIgnoringDuplicates(docs: Array<{ _id: string }>): Promise<string[]> {
  if (!docs.length) return [];
  try {
    await Lead.insertMany(docs, { ordered: false });
    return docs.map((d) => d._id);
  } catch (error) {
    const failure = error as { code?: number; writeErrors?: Array<{ index?: number; err?: { index: number; code: number } ; code?: number }>; insertedDocs?: Array<{ _id: string }> };
    const writeErrors = failure.writeErrors ?? [];
    const onlyDuplicates = writeErrors.length > 0 && writeErrors.every((e) => (e.err?.code ?? e.code) === 11000);
    if (!onlyDuplicates && failure.code !== 11000) throw error;
    const failed = new Set(writeErrors.map((e) => e.err?.index ?? e.index));
    return docs.filter((_, index) => !failed.has(index)).map((d) => d._id);
  }
}
