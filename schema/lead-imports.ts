import { z } from 'zod';
import { dateTime, nullableDateTime, uuid } from './common.ts';
import { coreFields, customKey } from './leads.ts';

/** Where a CSV column goes: a core field, a custom column (`custom.<key>`), or nowhere. */
export const importTarget = z
  .union([z.enum(coreFields), z.templateLiteral(['custom.', z.string()]), z.literal('ignore')])
  .refine((target) => !target.startsWith('custom.') || customKey.safeParse(target.slice('custom.'.length)).success, {
    message: 'custom.<key> takes a key of letters, digits and underscores',
  });
export type ImportTarget = z.infer<typeof importTarget>;

export const importStatuses = ['queued', 'running', 'completed', 'failed'] as const;

export const onDuplicate = z
  .enum(['skip', 'update'])
  .default('skip')
  .describe(
    "What a row whose email or LinkedIn URL is already stored does: `skip` (the default) leaves the stored lead as it is; `update` fills the stored lead's empty fields from the row, never overwriting a value.",
  );

export const startImportQuery = z.object({
  name: z
    .string()
    .min(1)
    .max(120)
    .optional()
    .describe("The import's label, listed with past lead searches in GET /api/leads's `campaigns` (default: `Import <date>`)."),
  mapping: z
    .string()
    .max(20_000)
    .optional()
    .describe(
      'A JSON object: column header → a core field (`email`, `full_name`, …), `custom.<key>`, or `ignore`. Columns not named are matched by their header; columns mapped to the same field are joined.',
    ),
  on_duplicate: onDuplicate,
});

const rowError = z
  .object({
    row: z.int().describe('The data row (the first after the header is 1).'),
    column: z.string().nullable().describe('The column header at fault; null for a fault of the whole row.'),
    message: z.string().describe('What is wrong.'),
  })
  .meta({ id: 'ImportRowError' });

export const leadImport = z
  .object({
    id: uuid,
    name: z.string().describe('The label of the import.'),
    status: z
      .enum(importStatuses)
      .describe('`queued`, `running`, `completed` or `failed` (the file could not be read to its end: `error`).'),
    total_rows: z.int().describe('Data rows in the file (the header row not counted).'),
    processed_rows: z.int().describe('Data rows handled so far; moves while the import runs.'),
    created: z.int().describe('Leads stored.'),
    updated: z.int().describe('Stored leads whose empty fields a row filled (`on_duplicate=update`).'),
    duplicates: z.int().describe('Rows whose email or LinkedIn URL was already stored (or came earlier in the file), left as they were.'),
    rejected: z.int().describe('Rows not stored (`errors`; GET /api/leads/imports/{id}/rejected lists them all).'),
    errors: z.array(rowError).describe('The first 100 rejected rows, with why.'),
    mapping: z
      .record(z.string(), z.string())
      .describe('Each column header → where its values went, as applied: a core field, `custom.<key>` or `ignore`.'),
    on_duplicate: z.enum(['skip', 'update']).describe('What rows matching a stored lead did.'),
    error: z.string().nullable().describe('Why the import failed; null otherwise.'),
    created_at: dateTime,
    finished_at: nullableDateTime.describe('When it completed or failed.'),
  })
  .meta({ id: 'LeadImport' });

export const leadImportOutput = z.object({ import: leadImport });
export const leadImportsOutput = z.object({ imports: z.array(leadImport).describe('The last 100 imports, newest first.') });
