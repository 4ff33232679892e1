import { z } from 'zod';
import { enrichableFields, fillEmptyLeadFields, type EnrichableField, listFields } from '../../leads/index.ts';
import type { AgentRunDoc } from '../agent-run.model.ts';

/** `fill_leads`: the enrichment run's writer, used by its built-in planner only (a model's tools are unchanged). */
export const fillLeadsArguments = z.object({
  updates: z
    .array(
      z.object({
        lead_id: z.string().describe("One of the run's leads."),
        field: z.string().describe('A core field (email, title, domain, phone, linkedin_url, location) or an auto-research column key.'),
        value: z.string().min(1).max(2000),
        source_url: z.string().describe('The page the value was read on: one fetched in this run.'),
      }),
    )
    .min(1)
    .max(200),
});

export interface FilledValue {
  lead_id: string;
  field: string;
  value: string;
  source_url: string;
}

/**
 * Writes values found for an enrichment run's leads, each only into a field
 * still empty, only for the run's own leads, only from pages this run read.
 * Answers what was set (the run's record of where each value came from)
 * and what was refused, with why.
 */
export async function fillLeads(run: AgentRunDoc, updates: z.infer<typeof fillLeadsArguments>['updates'], fetched: Set<string>) {
  const leads = new Set(run.leadIds ?? []);
  const autoColumns = new Set((await listFields(run.workspaceId)).filter((field) => field.auto_research).map((field) => field.key));
  const refused: Array<{ index: number; reason: string }> = [];
  const byLead = new Map<string, FilledValue[]>();
  for (const [index, update] of updates.entries()) {
    const reason = !leads.has(update.lead_id)
      ? 'lead_id: not a lead of this run'
      : !fetched.has(update.source_url)
        ? 'source_url: not a page fetched in this run'
        : !enrichableFields.includes(update.field as EnrichableField) && !autoColumns.has(update.field)
          ? 'field: not a fillable field or auto-research column'
          : null;
    if (reason) refused.push({ index, reason });
    else byLead.set(update.lead_id, [...(byLead.get(update.lead_id) ?? []), update]);
  }
  const filled: FilledValue[] = [];
  for (const [leadId, values] of byLead) {
    const core = Object.fromEntries(
      values.filter((v) => enrichableFields.includes(v.field as EnrichableField)).map((v) => [v.field, v.value.trim()]),
    );
    const custom = Object.fromEntries(values.filter((v) => autoColumns.has(v.field)).map((v) => [v.field, v.value.trim()]));
    const set = await fillEmptyLeadFields(run.workspaceId, leadId, core, custom);
    for (const field of [...set.fields, ...set.custom]) filled.push(values.find((v) => v.field === field)!);
  }
  return { filled, kept: updates.length - refused.length - filled.length, refused };
}
