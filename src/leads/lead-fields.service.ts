import { coreFields } from '../../schema/leads.ts';
import type { z } from 'zod';
import type { createFieldInput, customField } from '../../schema/leads.ts';
import { fieldError } from '../errors/field-error.ts';
import { CustomField, type CustomFieldDoc } from './lead.models.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';

type FieldOut = z.infer<typeof customField>;

const toField = (doc: CustomFieldDoc): FieldOut => ({
  key: doc.key,
  label: doc.label,
  type: doc.type,
  description: doc.description,
  auto_research: doc.auto_research,
  declared: doc.declared,
});

/** "Annual Revenue ($)" -> "annual_revenue"; never a core field name. */
export function keyFromLabel(label: string): string {
  let key = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  if (!key) throw fieldError({ field: 'label', problem: 'must contain at least one letter or digit' });
  if (/^[0-9]/.test(key)) key = `_${key}`.slice(0, 64);
  if ((coreFields as readonly string[]).includes(key)) key = `custom_${key}`;
  return key;
}

export async function listFields(workspaceId: string): Promise<FieldOut[]> {
  const docs = await CustomField.find({ workspaceId }).sort({ position: 1, _id: 1 }).lean<CustomFieldDoc[]>();
  return docs.map(toField);
}

const nextPosition = async (workspaceId: string) => (await CustomField.countDocuments({ workspaceId })) + 1;

/** Declares a column. An already declared column comes back unchanged; an undeclared key becomes declared. */
export async function declareField(workspaceId: string, input: z.infer<typeof createFieldInput>) {
  const key = keyFromLabel(input.label);
  const existing = await CustomField.findOne({ workspaceId, key }).lean<CustomFieldDoc>();
  if (existing?.declared) return { field: toField(existing), created: false };
  const definition = {
    label: input.label,
    type: input.type,
    description: input.description,
    auto_research: input.auto_research,
    declared: true,
  };
  if (existing) {
    const updated = await CustomField.findOneAndUpdate(
      { _id: existing._id },
      { $set: definition },
      { returnDocument: 'after' },
    ).lean<CustomFieldDoc>();
    return { field: toField(updated!), created: true };
  }
  try {
    const doc = await CustomField.create({ workspaceId, key, ...definition, position: await nextPosition(workspaceId) });
    return { field: toField(doc.toObject()), created: true };
  } catch (error) {
    // Declared concurrently by another request: it exists now, unchanged.
    if (!isDuplicateKey(error)) throw error;
    const winner = await CustomField.findOne({ workspaceId, key }).lean<CustomFieldDoc>();
    return { field: toField(winner!), created: false };
  }
}

/** The workspace's columns, declared or not, by key. */
export type ColumnsByKey = ReadonlyMap<string, Pick<CustomFieldDoc, 'type' | 'declared'>>;

/**
 * The workspace's columns among `keys`, in one read (it may scan the
 * collection): what a write checks its custom values against, and
 * then hands to recordUndeclaredKeys so it need not read them again.
 */
export async function columnsFor(workspaceId: string, keys: Iterable<string>): Promise<ColumnsByKey> {
  const unique = [...new Set(keys)];
  if (!unique.length) return new Map();
  const docs = await CustomField.find({ workspaceId, key: { $in: unique } }, { key: 1, type: 1, declared: 1 }).lean<CustomFieldDoc[]>();
  return new Map(docs.map((doc) => [doc.key, { type: doc.type, declared: doc.declared }]));
}

/**
 * Records custom keys written without a declaration, so the list can show
 * them as `declared: false`. `known`: the columns as columnsFor read them
 * for this write (read here when not given).
 */
export async function recordUndeclaredKeys(workspaceId: string, keys: Iterable<string>, known?: ColumnsByKey): Promise<void> {
  const unique = [...new Set(keys)];
  if (!unique.length) return;
  const columns = known ?? (await columnsFor(workspaceId, unique));
  if (unique.every((key) => columns.has(key))) return;
  let position = await nextPosition(workspaceId);
  for (const key of unique.filter((k) => !columns.has(k))) {
    await CustomField.create({ workspaceId, key, label: key, declared: false, position: position++ }).catch((error: unknown) => {
      if (!isDuplicateKey(error)) throw error;
    });
  }
}

/**
 * Declares the columns a CSV import adds, as text, labelled by their header: a key not yet known is declared, one
 * written undeclared becomes declared (as text), a declared one stays as it is (its type checks the import's values).
 */
export async function declareImportColumns(workspaceId: string, columns: Array<{ key: string; label: string }>): Promise<void> {
  const known = await columnsFor(
    workspaceId,
    columns.map((column) => column.key),
  );
  let position = await nextPosition(workspaceId);
  for (const { key, label } of columns) {
    const column = known.get(key);
    if (column?.declared) continue;
    const definition = { label: label.slice(0, 64), type: 'text' as const, declared: true };
    if (column) await CustomField.updateOne({ workspaceId, key, declared: false }, { $set: definition });
    else
      await CustomField.create({ workspaceId, key, ...definition, position: position++ }).catch((error: unknown) => {
        if (!isDuplicateKey(error)) throw error;
      });
  }
}
