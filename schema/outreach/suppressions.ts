import { z } from 'zod';
import { dateTime, uuid } from '../common.ts';

export const suppressionReasons = ['unsubscribe', 'hard_bounce', 'complaint', 'manual'] as const;
export type SuppressionReason = (typeof suppressionReasons)[number];

const reason = z
  .enum(suppressionReasons)
  .describe(
    'Why the entry is on the list: `unsubscribe` (the recipient asked), `hard_bounce` (the address does not exist), `complaint` (marked as spam), `manual` (added by hand).',
  );

/** `x@domain` is an address exactly when `@domain` is a domain entry, so one address check covers both forms. */
export const isSuppressionEntry = (entry: string) => z.email().safeParse(entry.startsWith('@') ? `x${entry}` : entry).success;

/** An address or a whole domain, compared without case: trimmed and lower-cased before anything else. */
export const suppressionEntry = z
  .string()
  .trim()
  .toLowerCase()
  .max(320)
  .refine(isSuppressionEntry, 'must be an email address (a@b.test) or a whole domain (@b.test)')
  .describe('An email address (`ada@acme.test`), or `@` and a domain (`@acme.test`) for every address at that domain; case is ignored.');

export const suppression = z
  .object({
    id: uuid.describe("The entry's id, derived from the workspace and the entry: the same entry always has the same id."),
    email: z.string().nullable().describe('The address, lower-cased; null for a whole-domain entry.'),
    domain: z.string().describe("The address's domain, or the domain a whole-domain entry covers."),
    reason,
    source: z.string().describe('Where the entry came from: `api` (added through the API), `unsubscribe_link`, `smtp_rejection`, ...'),
    created_at: dateTime.describe('When the entry was added.'),
  })
  .meta({ id: 'Suppression' });
export type SuppressionOut = z.infer<typeof suppression>;

/** The CSV download's columns, in order: the Suppression fields. */
export const suppressionCsvColumns = Object.keys(suppression.shape) as Array<keyof SuppressionOut>;

export const listSuppressionsInput = z.object({
  q: z.string().trim().max(320).optional().describe('Only entries containing this text (case-insensitive), e.g. a domain.'),
  limit: z.int().min(1).max(500).default(100).describe('Page size, at most 500 (JSON only).'),
  offset: z.int().min(0).default(0).describe('Rows to skip (JSON only).'),
  format: z
    .enum(['json', 'csv'])
    // A value only REST serves (as a download): the derived surfaces (GraphQL, MCP) do not offer it.
    .meta({ id: 'SuppressionListFormat', 'x-rest-only-values': ['csv'] })
    .default('json')
    .describe(
      '`csv` answers the whole list (filtered by `q`, not paged) as a `text/csv` download, newest first, with a header row naming the Suppression fields. A REST download only: GraphQL and tRPC answer JSON pages.',
    ),
});

export const listSuppressionsOutput = z.object({
  suppressions: z.array(suppression).describe('The page, newest first.'),
  total: z.int().describe('Entries matching `q` (all entries without it).'),
});

const entryList = z.array(suppressionEntry).min(1).max(1000);

export const addSuppressionsInput = z
  .strictObject({
    entries: entryList.describe('1 to 1,000 addresses or `@domain` entries; a 400 names the first bad one as `entries.<i>`.'),
    reason: reason.default('manual'),
  })
  .meta({ examples: [{ entries: ['jane.doe@example.com', '@example.org'], reason: 'manual' }] });

export const addSuppressionsOutput = z.object({
  added: z.int().describe('Entries put on the list by this call.'),
  existing: z.int().describe('Entries that were already on the list (or repeated in the call); they keep their reason and date.'),
});

export const removeSuppressionsInput = z
  .strictObject({
    ids: z.array(uuid).min(1).max(1000).optional().describe('1 to 1,000 entry ids to remove.'),
    emails: entryList
      .optional()
      .describe('1 to 1,000 entries to remove, written as when added (an address, or `@domain` for a whole-domain entry).'),
  })
  .refine((body) => (body.ids === undefined) !== (body.emails === undefined), { message: 'give either ids or emails', path: ['ids'] })
  .meta({ examples: [{ emails: ['jane.doe@example.com'] }] });

export const removeSuppressionsOutput = z.object({
  deleted: z.int().describe('Entries removed (ids or entries not on the list are ignored).'),
});
