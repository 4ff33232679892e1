import type { NewLead } from '../../schema/leads.ts';
import { AppError } from '../errors/app-error.ts';
import { importLeads } from './lead-import.service.ts';
import { toLead } from './lead-mapper.ts';
import { Lead, type LeadDoc } from './lead.models.ts';

export interface FoundLead {
  /** Derived from the run and the lead, so a step that runs again stores nothing twice. */
  id: string;
  lead: NewLead;
}

export interface SavedLeads {
  created: number;
  duplicates: number;
  createdIds: string[];
  /** The plan's lead cap stopped the saving: the leads after the first that did not fit were not stored. */
  limitReached: boolean;
}

/**
 * Stores leads an agent run found, deduplicated against the workspace
 * (email, then LinkedIn URL), all counted in the run's one past lead
 * search. When they do not all fit under the plan's cap, stores them one by
 * one until the first that does not fit.
 */
export async function saveFoundLeads(
  workspaceId: string,
  run: { id: string; brandId: string; goal: string },
  found: FoundLead[],
): Promise<SavedLeads> {
  const origin = { agentRunId: run.id, brandId: run.brandId, search: { id: run.id, label: `Agent: ${run.goal.slice(0, 100)}` } };
  const importOf = (batch: FoundLead[]) =>
    importLeads(workspaceId, { leads: batch.map((f) => f.lead) }, { ...origin, leadIds: batch.map((f) => f.id) });
  if (found.length === 0) return { created: 0, duplicates: 0, createdIds: [], limitReached: false };
  try {
    const result = await importOf(found);
    return { created: result.created, duplicates: result.duplicates, createdIds: result.leads.map((lead) => lead.id), limitReached: false };
  } catch (error) {
    if (!isLeadLimit(error)) throw error;
  }
  const saved: SavedLeads = { created: 0, duplicates: 0, createdIds: [], limitReached: false };
  for (const one of found) {
    try {
      const result = await importOf([one]);
      saved.created += result.created;
      saved.duplicates += result.duplicates;
      saved.createdIds.push(...result.leads.map((lead) => lead.id));
    } catch (error) {
      if (!isLeadLimit(error)) throw error;
      return { ...saved, limitReached: true };
    }
  }
  return saved;
}

const isLeadLimit = (error: unknown) => error instanceof AppError && error.code === 'lead_limit';

/** The leads a run stored, oldest first (for its leads.csv). */
export async function leadsOfAgentRun(workspaceId: string, runId: string) {
  const docs = await Lead.find({ workspaceId, agentRunId: runId }).sort({ createdAt: 1, _id: 1 }).lean<LeadDoc[]>();
  return docs.map(toLead);
}
