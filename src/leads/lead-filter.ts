import type { LeadFilterInput } from '../../schema/leads.ts';
import { escapeRegex } from '../db/exact-text.ts';
import { fieldError } from '../errors/field-error.ts';
import { checkCustomValue } from './custom-values.ts';
import { columnsFor } from './lead-fields.service.ts';

/**
 * The lead list's query for its filters (also what the export, email validation and enrichment select leads
 * with). Every part is a top-level field of the lead, so the embedded store answers it from the indexes
 * (lead.models.ts), but `custom`, a path into the lead's custom values, which the store checks lead by lead
 * among those the other parts select. `custom` comes checked by checkedCustomFilter.
 */
export function leadListFilter(workspaceId: string, brandId: string | null, input: Partial<LeadFilterInput>) {
  const filter: Record<string, unknown> = { workspaceId, archivedAt: null };
  if (input.status === 'archived') filter.archivedAt = { $ne: null };
  else if (input.status === 'unsubscribed') filter.unsubscribedAt = { $ne: null };
  else if (input.status) filter.status = input.status;
  if (input.agent_run_id) filter.agentRunId = input.agent_run_id;
  if (brandId) filter.brandId = brandId;
  if (input.q?.trim()) filter.searchText = { $regex: escapeRegex(input.q.trim().toLowerCase()) };
  const score = range(input.score_min, input.score_max, '$gte', '$lte');
  if (score) filter.score = score;
  if (input.email_status) filter.email_status = { $in: [...new Set(input.email_status)] };
  // On `email`, not its dedupe key: the list's index holds it (an empty email is stored as null).
  if (input.has_email !== undefined) filter.email = input.has_email ? { $ne: null } : null;
  const created = range(dateOf(input.created_after), dateOf(input.created_before), '$gt', '$lt');
  if (created) filter.createdAt = created;
  if (input.updated_after) filter.updatedAt = { $gt: new Date(input.updated_after) };
  for (const [key, value] of Object.entries(input.custom ?? {})) filter[`custom.${key}`] = value;
  return filter;
}

const dateOf = (iso: string | undefined) => (iso === undefined ? undefined : new Date(iso));

function range<T>(low: T | undefined, high: T | undefined, lowOp: string, highOp: string) {
  if (low === undefined && high === undefined) return undefined;
  return { ...(low !== undefined && { [lowOp]: low }), ...(high !== undefined && { [highOp]: high }) };
}

/**
 * The `custom` filter checked against the workspace's columns: each key must be a declared column and its value
 * of the column's type (400 naming `custom.<key>` otherwise), normalized as stored values are (`TRUE` → `true`, a
 * date-time to UTC), so that equality finds them.
 */
export async function checkedCustomFilter(workspaceId: string, custom: Record<string, string> | undefined) {
  if (!custom || !Object.keys(custom).length) return custom;
  const columns = await columnsFor(workspaceId, Object.keys(custom));
  const checked: Record<string, string> = {};
  const problems: Array<{ field: string; problem: string }> = [];
  for (const [key, value] of Object.entries(custom)) {
    const column = columns.get(key);
    const result = column?.declared ? checkCustomValue(column, value) : { problem: 'not a declared custom column' };
    if ('problem' in result) problems.push({ field: `custom.${key}`, problem: result.problem });
    else checked[key] = result.value ?? '';
  }
  const [first, ...more] = problems;
  if (first) throw fieldError(first, ...more);
  return checked;
}

/** REST query parameters `custom.<key>=<value>` gathered into the input's `custom` record (the REST bridge's restInput). */
export function customFromQuery(raw: Record<string, unknown>): Record<string, unknown> {
  const custom: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name.startsWith('custom.')) custom[name.slice('custom.'.length)] = value;
    else rest[name] = value;
  }
  return Object.keys(custom).length ? { ...rest, custom } : rest;
}
