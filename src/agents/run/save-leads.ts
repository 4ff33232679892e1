import { v5 as nameBasedId } from 'uuid';
import { z } from 'zod';
import type { NewLead } from '../../../schema/leads.ts';
import { saveFoundLeads, type FoundLead, listFields } from '../../leads/index.ts';
import type { AgentRunDoc } from '../agent-run.model.ts';
import type { Budget } from './budget.ts';
import type { FoundLeadInput } from './tool-specs.ts';

const email = z.email();
const httpUrl = z.url({ protocol: /^https?$/ });

export interface AgentSave {
  created: number;
  duplicates: number;
  rejected: Array<{ index: number; reason: string }>;
  limitReached: boolean;
  leadsByHost: Record<string, number>;
}

/**
 * Stores people a run found as leads of its brand, each with the run's id
 * and the page it was found on. A lead's id is derived from the run and
 * the person, so saving them again (the step after a crash, or the same
 * person found twice) stores nothing new. Only pages fetched in this run
 * count as sources, and only auto-research columns take custom values.
 */
export async function saveAgentLeads(run: AgentRunDoc, leads: FoundLeadInput[], fetched: Set<string>, budget: Budget): Promise<AgentSave> {
  const rejected: AgentSave['rejected'] = [];
  const autoColumns = new Set((await listFields(run.workspaceId)).filter((field) => field.auto_research).map((field) => field.key));
  const found: FoundLead[] = [];
  const hostOf = new Map<string, string>();
  for (const [index, lead] of leads.entries()) {
    const problem = problemWith(lead, fetched);
    if (problem) {
      rejected.push({ index, reason: problem });
      continue;
    }
    if (found.length >= budget.leadsLeft) {
      rejected.push({ index, reason: "the run's lead budget (max_leads) is spent" });
      continue;
    }
    const id = nameBasedId(
      `${(lead.email ?? '').toLowerCase()}|${lead.full_name.trim().toLowerCase()}|${(lead.domain ?? new URL(lead.source_url).hostname).toLowerCase()}`,
      run._id,
    );
    found.push({ id, lead: toNewLead(lead, autoColumns) });
    hostOf.set(id, new URL(lead.source_url).hostname);
  }
  const saved = await saveFoundLeads(run.workspaceId, { id: run._id, brandId: run.brandId, goal: run.goal }, found);
  const leadsByHost: Record<string, number> = {};
  for (const id of saved.createdIds) leadsByHost[hostOf.get(id)!] = (leadsByHost[hostOf.get(id)!] ?? 0) + 1;
  return { created: saved.created, duplicates: saved.duplicates, rejected, limitReached: saved.limitReached, leadsByHost };
}

function problemWith(lead: FoundLeadInput, fetched: Set<string>): string | null {
  if (!httpUrl.safeParse(lead.source_url).success || !fetched.has(lead.source_url)) return 'source_url: not a page fetched in this run';
  if (lead.email && !email.safeParse(lead.email).success) return 'email: not an email address';
  if (lead.linkedin_url && !httpUrl.safeParse(lead.linkedin_url).success) return 'linkedin_url: not a URL';
  return null;
}

function toNewLead(lead: FoundLeadInput, autoColumns: Set<string>): NewLead {
  const custom = Object.fromEntries(Object.entries(lead.custom ?? {}).filter(([key]) => autoColumns.has(key)));
  const pick = <K extends keyof FoundLeadInput>(key: K) => (lead[key] ? { [key]: String(lead[key]).trim() } : {});
  return {
    full_name: lead.full_name.trim(),
    ...pick('title'),
    ...(lead.email && { email: lead.email.trim().toLowerCase() }),
    ...pick('linkedin_url'),
    ...pick('phone'),
    ...pick('company'),
    ...(lead.domain ? { domain: lead.domain.toLowerCase() } : { domain: new URL(lead.source_url).hostname }),
    ...pick('location'),
    source_url: lead.source_url,
    ...(Object.keys(custom).length > 0 && { custom }),
  } as NewLead;
}
