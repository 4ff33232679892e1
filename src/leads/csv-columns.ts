import { coreFields, newLead, type CoreField, type NewLead } from '../../schema/leads.ts';
import type { ImportTarget } from '../../schema/lead-imports.ts';
import { keyFromLabel } from './lead-fields.service.ts';

/**
 * How a CSV file's columns become a lead: each header goes to a core field, a custom column or nowhere, by the
 * import's `mapping` first, then by its name (case, spaces and punctuation ignored), else to a custom column of
 * its own. Pure: no database.
 */

/** A header as compared: lower case, accents, spaces and punctuation dropped (`E-mail Address` → `emailaddress`). */
const normalized = (header: string) =>
  header
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

/** The headers each core field is known by, normalized; first and last name are joined into `full_name`. */
const knownHeaders: Record<string, CoreField> = {
  email: 'email',
  emailaddress: 'email',
  fullname: 'full_name',
  name: 'full_name',
  firstname: 'full_name',
  lastname: 'full_name',
  company: 'company',
  companyname: 'company',
  organization: 'company',
  organisation: 'company',
  title: 'title',
  jobtitle: 'title',
  position: 'title',
  website: 'domain',
  companywebsite: 'domain',
  domain: 'domain',
  linkedin: 'linkedin_url',
  linkedinurl: 'linkedin_url',
  phone: 'phone',
  location: 'location',
  city: 'location',
  country: 'location',
  sourceurl: 'source_url',
};

/** Fields several columns may fill, joined with this (a first and a last name; a city and a country). */
const joiners: Partial<Record<CoreField, string>> = { full_name: ' ', location: ', ' };

/**
 * Each column's target: `mapping` (by header) first; a header naming a core field takes it, unless an earlier column
 * has it (full name and location take several, joined); every other column becomes a custom column keyed from its
 * header. Answers the targets in column order.
 */
export function columnTargets(header: string[], mapping: Record<string, ImportTarget>): ImportTarget[] {
  const taken = new Set<string>(Object.values(mapping));
  const usedKeys = new Set(Object.values(mapping).filter((t) => t.startsWith('custom.')));
  // First and last name are one full name; a `Name` or `Full name` column beside them keeps it whole.
  const hasFullName = header.some((h) => ['fullname', 'name'].includes(normalized(h)) && !(h in mapping));
  return header.map((column) => {
    const mapped = mapping[column];
    if (mapped) return mapped;
    const norm = normalized(column);
    const field = knownHeaders[norm];
    const nameParts = norm === 'firstname' || norm === 'lastname';
    if (field && (!taken.has(field) || joiners[field]) && !(nameParts && hasFullName)) {
      taken.add(field);
      return field;
    }
    return customTarget(column, usedKeys);
  });
}

/** `custom.<key>` for a column without a field, its key from its header, numbered if another column has it. */
function customTarget(column: string, used: Set<string>): ImportTarget {
  let base: string;
  try {
    base = keyFromLabel(column);
  } catch {
    base = 'column';
  }
  let target = `custom.${base}` as ImportTarget;
  for (let n = 2; used.has(target); n++) target = `custom.${base}_${n}`.slice(0, 71) as ImportTarget;
  used.add(target);
  return target;
}

/** A website or domain as the lead's `domain`: its host in lower case, without `www.` (as typed when it is no URL). */
export function domainOf(value: string): string {
  const text = value.trim();
  const url =
    URL.canParse(text) && /^https?:\/\//i.test(text) ? new URL(text) : URL.canParse(`http://${text}`) ? new URL(`http://${text}`) : null;
  const host = url?.hostname.toLowerCase() ?? text.toLowerCase();
  return host.replace(/^www\./, '');
}

export type RowResult = { lead: NewLead } | { column: string | null; message: string };

/** One data row as a lead, or what is wrong with it (the column at fault, by header). */
export function rowToLead(header: string[], targets: ImportTarget[], cells: string[]): RowResult {
  const core: Partial<Record<CoreField, string>> = {};
  const custom: Record<string, string> = {};
  const columnOf = new Map<string, string>();
  targets.forEach((target, index) => {
    const value = (cells[index] ?? '').trim();
    if (target === 'ignore' || value === '') return;
    if (!columnOf.has(target)) columnOf.set(target, header[index]!);
    if (target.startsWith('custom.')) {
      custom[target.slice('custom.'.length)] = value;
      return;
    }
    const field = target as CoreField;
    const cell = field === 'domain' ? domainOf(value) : value;
    const joiner = joiners[field];
    core[field] = core[field] && joiner ? `${core[field]}${joiner}${cell}` : (core[field] ?? cell);
  });
  if (!Object.keys(core).length && !Object.keys(custom).length) return { column: null, message: 'the row has no values' };
  const checked = newLead.safeParse({ ...core, ...(Object.keys(custom).length && { custom }) });
  if (checked.success) return { lead: checked.data };
  const issue = checked.error.issues[0]!;
  const target = issue.path[0] === 'custom' ? `custom.${String(issue.path[1])}` : String(issue.path[0]);
  const column = columnOf.get(target) ?? null;
  const field = (coreFields as readonly string[]).includes(target) ? target : 'value';
  return { column, message: `not a valid ${field}: ${issue.message}` };
}
