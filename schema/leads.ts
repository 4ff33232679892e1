import { z } from 'zod';
import { exampleId, brandFilter, dateTime, nullableDateTime, okFlag, uuid } from './common.ts';
import { emailProviderText, emailStatus, emailStatusText } from './email-status.ts';

export const coreFields = ['company', 'full_name', 'title', 'email', 'phone', 'domain', 'linkedin_url', 'location', 'source_url'] as const;
export type CoreField = (typeof coreFields)[number];

export const leadStatuses = ['new', 'qualified', 'contacted', 'disqualified'] as const;
export const leadStatus = z.enum(leadStatuses).describe('Lead status, set directly by update calls.');

/** Custom column keys are stored as document keys, so they stay plain identifiers. */
export const customKey = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must start with a letter or underscore and contain only letters, digits and underscores');

export const customFieldTypes = ['text', 'number', 'boolean', 'url', 'email', 'date'] as const;
export type CustomFieldType = (typeof customFieldTypes)[number];

/** What each column type accepts: the one text the schemas below describe the type check with. */
const customTypeRules =
  "A declared column's type is enforced on import and update (400 naming the value otherwise): " +
  '`text` takes any text, stored as sent; ' +
  '`number` a finite decimal number: optional minus sign, digits, optional fraction and exponent, such as `12.5`, `-3` or `1.5e3` (no `+`, thousands separators, `NaN` or `Infinity`), stored as sent so `12.50` keeps its digits; ' +
  '`boolean` `true` or `false` in any case, stored in lower case; ' +
  '`date` an ISO 8601 calendar date (`2024-05-01`), stored as sent, or date-time with a zone, seconds optional (`2024-05-01T10:00:00+02:00`, `2024-05-01T10:00Z`), stored in UTC (`2024-05-01T08:00:00.000Z`); ' +
  '`url` an absolute `http` or `https` URL with a host; ' +
  '`email` an email address. ' +
  'Values of typed (non-text) columns are trimmed of surrounding whitespace first; an empty string or null is no value in every type. Keys without a declared column take any text.';

const customValue = z.string().max(2000).nullable();
const valueText = z.string().max(2000);
const score = z.int().min(0).max(100).describe('Lead score, 0 to 100.');

export const lead = z
  .object({
    id: uuid,
    company: z.string().nullable().describe('Company name.'),
    full_name: z.string().nullable().describe('Full name of the person.'),
    title: z.string().nullable().describe('Job title.'),
    email: z.string().nullable().describe('Email address.'),
    phone: z.string().nullable().describe('Phone number.'),
    domain: z.string().nullable().describe('Company web domain.'),
    linkedin_url: z.string().nullable().describe('LinkedIn profile URL.'),
    location: z.string().nullable().describe('Location.'),
    source_url: z.string().nullable().describe('Where the lead was found.'),
    score: score.nullable(),
    status: leadStatus,
    custom: z
      .record(z.string(), z.string().nullable())
      .describe("Custom column values keyed by column key, as text in the form their column's type stores (see CustomField `type`)."),
    email_status: emailStatus
      .nullable()
      .describe(
        `Result of the last email validation (POST /api/leads/validate), one of ${emailStatusText}; null until validated, and again when the email changes.`,
      ),
    email_provider: z.string().nullable().describe(`${emailProviderText} (set by validation).`),
    email_is_role: z.boolean().nullable().describe('True when the address is a role address such as info@ (set by validation).'),
    email_is_free: z
      .boolean()
      .nullable()
      .describe('True when the address is at a free mailbox provider such as gmail.com (set by validation).'),
    email_validated_at: nullableDateTime.describe('When the email was last validated.'),
    unsubscribed_at: nullableDateTime.describe('Set when the lead unsubscribed.'),
    archived_at: nullableDateTime.describe('Set when the lead is archived.'),
    agent_run_id: uuid.nullable().describe('The agent run that produced the lead.'),
    brand_id: uuid.describe('The brand the lead was stored under.'),
    created_at: dateTime.describe('When the lead was stored.'),
    updated_at: dateTime.describe('When the lead last changed.'),
  })
  .meta({ id: 'Lead' });
export type Lead = z.infer<typeof lead>;

export const customField = z
  .object({
    key: z.string().describe('Key under which values are stored in `custom`.'),
    label: z.string().describe('Display label.'),
    type: z.enum(customFieldTypes).describe(`Value type of the column. ${customTypeRules}`),
    description: z.string().describe('What the column holds.'),
    auto_research: z.boolean().describe('When true the agent fills the column on future lead searches.'),
    declared: z.boolean().describe('False for keys written by updates without a declaration.'),
  })
  .meta({ id: 'CustomField' });

export const pastLeadSearch = z
  .object({
    id: uuid,
    label: z.string().describe('Import name or date.'),
    count: z.int().describe('Leads the search stored.'),
    created_at: dateTime,
  })
  .meta({ id: 'PastLeadSearch' });

export const listLeadsInput = z.object({
  q: z.string().max(200).optional().describe('Case-insensitive search across company, full_name, email and domain.'),
  status: z
    .enum([...leadStatuses, 'archived', 'unsubscribed'])
    .meta({ id: 'LeadStatusFilter' })
    .optional()
    .describe('Status filter; `archived` and `unsubscribed` select by flag. Archived leads are left out otherwise.'),
  agent_run_id: uuid.optional().describe('Only leads produced by this agent run.'),
  brand: brandFilter,
  score_min: score.optional().describe('Only leads scored at least this (0 to 100).'),
  score_max: score.optional().describe('Only leads scored at most this (0 to 100).'),
  email_status: z
    .array(emailStatus)
    .min(1)
    .optional()
    .describe('Only leads whose email validation verdict is one of these (REST: comma-separated, `valid,accept_all`).'),
  has_email: z.boolean().optional().describe('True: only leads with an email; false: only leads without one.'),
  created_after: dateTime.optional().describe('Only leads stored after this instant.'),
  created_before: dateTime.optional().describe('Only leads stored before this instant.'),
  updated_after: dateTime
    .optional()
    .describe('Only leads changed after this instant (any write sets `updated_at`); the page is then ordered oldest change first.'),
  // A pipe, which trpc-to-openapi takes as a query parameter: REST sends one `custom.<key>` parameter per column.
  custom: z
    .record(customKey, z.string().max(2000))
    .pipe(z.record(z.string(), z.string()))
    .optional()
    .describe('Equality on declared custom columns, by key (REST: one `custom.<key>=<value>` parameter each).'),
  limit: z.int().min(1).max(500).default(100).describe('Page size, at most 500.'),
  offset: z.int().min(0).default(0).describe('Rows to skip (not with `cursor`).'),
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe("The previous page's `next_cursor`: the page after it, in the same order, with the same filters."),
});

/** The filters of the list (and the export), without its paging. */
export const leadFilterFields = [
  'q',
  'status',
  'agent_run_id',
  'brand',
  'score_min',
  'score_max',
  'email_status',
  'has_email',
  'created_after',
  'created_before',
  'updated_after',
  'custom',
] as const;
export type LeadFilterInput = Pick<z.infer<typeof listLeadsInput>, (typeof leadFilterFields)[number]>;

/** The lead export's filters: the list's, without its paging (every matching lead is exported). */
export const exportLeadsInput = listLeadsInput.pick(
  Object.fromEntries(leadFilterFields.map((f) => [f, true])) as {
    [K in (typeof leadFilterFields)[number]]: true;
  },
);

/** The export's columns before the custom ones: the id, the core fields, then the lead's state. */
export const leadExportColumns = ['id', ...coreFields, 'score', 'status', 'email_status', 'created_at'] as const;

export const listLeadsOutput = z.object({
  leads: z.array(lead),
  total: z.int().describe('Rows matching the filter.'),
  workspaceTotal: z.int().describe('All stored leads, ignoring filters.'),
  customColumns: z.array(z.string()).describe('Keys of the custom columns.'),
  customFields: z.array(customField),
  campaigns: z.array(pastLeadSearch).describe('Past lead searches and imports with their counts.'),
  leadLimit: z.int().describe("The plan's stored-lead cap."),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass as `cursor` for the next page (keyset: every lead once while nothing changes); null on the last page.'),
});

const coreInput = {
  company: valueText.optional(),
  full_name: valueText.optional(),
  title: valueText.optional(),
  email: z.email().max(320).optional(),
  phone: z.string().max(64).optional(),
  domain: z.string().max(253).optional(),
  linkedin_url: z.url().max(2000).optional(),
  location: valueText.optional(),
  source_url: z.url().max(2000).optional(),
};

export const newLead = z
  .strictObject({
    ...coreInput,
    score: score.optional(),
    status: leadStatus.optional(),
    custom: z
      .record(customKey, customValue)
      .optional()
      .describe(
        `Custom column values keyed by column key. ${customTypeRules} One value not of its column's type refuses the whole import.`,
      ),
  })
  .describe('A lead to store: any core fields, plus custom values.');
export type NewLead = z.infer<typeof newLead>;

export const importLeadsInput = z
  .strictObject({
    name: z.string().min(1).max(120).optional().describe("Label of this import in the list's past lead searches (default: the date)."),
    brand_id: uuid
      .optional()
      .describe(
        "Brand to store the leads under (default: the credential's brand: the one its key is bound to, else the workspace's default).",
      ),
    leads: z.array(newLead).min(1).max(500).describe('1 to 500 leads.'),
  })
  .meta({
    examples: [
      {
        name: 'Berlin fintech CTOs',
        leads: [
          {
            full_name: 'Jane Doe',
            email: 'jane.doe@example.com',
            company: 'Example Pay GmbH',
            title: 'CTO',
            domain: 'example.com',
            location: 'Berlin, Germany',
          },
        ],
      },
    ],
  });

export const importLeadsOutput = z.object({
  created: z.int().describe('Leads stored by this call.'),
  duplicates: z.int().describe('Leads skipped because their email or LinkedIn URL is already stored.'),
  leads: z.array(lead).describe('The stored leads.'),
});

export const updateLeadInput = z
  .strictObject({
    id: uuid,
    field: z.string().min(1).max(64).optional().describe('A core field name or a custom column key; a non-core name writes into `custom`.'),
    value: z
      .string()
      .max(2000)
      .nullable()
      .optional()
      .describe(
        `New value for \`field\`; empty string or null clears it. A core field takes what import takes (\`email\` an email, \`linkedin_url\` and \`source_url\` URLs). ${customTypeRules}`,
      ),
    status: leadStatus.optional(),
    score: score.optional(),
    archived: z.boolean().optional().describe('True archives the lead, false restores it.'),
  })
  .refine((body) => body.field !== undefined || body.status !== undefined || body.score !== undefined || body.archived !== undefined, {
    message: 'nothing to update: give field and value, status, score or archived',
    path: ['field'],
  })
  .refine((body) => body.field === undefined || body.value !== undefined, { message: 'required with field', path: ['value'] })
  .meta({ examples: [{ id: exampleId, field: 'title', value: 'Chief Technology Officer', status: 'qualified' }] });

export const leadOutput = z.object({ lead });

export const leadIdInput = z.object({ id: uuid.describe("The lead's id.") });

const idList = z.array(uuid).min(1).max(500).describe('1 to 500 lead ids.');

export const bulkUpdateLeadsInput = z
  .strictObject({
    ids: idList,
    status: leadStatus.optional(),
    archived: z.boolean().optional().describe('True archives the leads, false restores them.'),
  })
  .refine((body) => body.status !== undefined || body.archived !== undefined, {
    message: 'give status or archived',
    path: ['status'],
  })
  .meta({ examples: [{ ids: [exampleId], status: 'contacted' }] });

export const bulkUpdateLeadsOutput = z.object({ ok: okFlag, updated: z.int().describe('Leads changed.') });

export const deleteLeadsInput = z.strictObject({ ids: idList }).meta({ examples: [{ ids: [exampleId] }] });
export const deleteLeadsOutput = z.object({ ok: okFlag, deleted: z.int().describe('Leads deleted.') });

export const capacityOutput = z
  .object({
    used: z.int().describe('Stored leads counting toward the cap (archived leads do not).'),
    limit: z.int().describe("The plan's cap."),
    remaining: z.int().describe('Leads that can still be stored.'),
    tier: z.string().describe('The plan.'),
  })
  .meta({ id: 'LeadCapacity' });

export const listFieldsOutput = z.object({ fields: z.array(customField).describe('Custom columns in display order.') });

export const createFieldInput = z
  .strictObject({
    label: z.string().trim().min(1).max(64).describe('Display label; the key is derived from it.'),
    type: z
      .enum(customFieldTypes)
      .default('text')
      .describe(`Value type of the column (default \`text\`). ${customTypeRules} Values stored before the declaration are not checked.`),
    description: z.string().max(500).default(''),
    auto_research: z.boolean().default(false),
  })
  .meta({ examples: [{ label: 'Funding stage', type: 'text', description: 'The latest funding round, e.g. Series A.' }] });
export const createFieldOutput = z.object({
  field: customField,
  created: z.boolean().describe('False when the column already existed; it is returned unchanged.'),
});

export const criteria = z
  .strictObject({
    description: z.string().max(2000).optional(),
    count: z.int().min(1).max(10_000).optional(),
    locations: z.array(z.string().max(200)).max(100).optional(),
    industries: z.array(z.string().max(200)).max(100).optional(),
    company_size: z.string().max(100).optional(),
    titles: z.array(z.string().max(200)).max(100).optional(),
    keywords: z.array(z.string().max(200)).max(100).optional(),
    exclusions: z.array(z.string().max(200)).max(100).optional(),
    required_fields: z.array(z.string().max(64)).max(20).optional(),
    extra_columns: z
      .array(z.strictObject({ name: z.string().max(64), description: z.string().max(500) }))
      .max(20)
      .optional(),
    sources: z.array(z.string().max(200)).max(50).optional(),
    notes: z.string().max(2000).optional(),
  })
  .describe('What the saved search looks for.');

export const researchProfile = z
  .object({
    id: uuid,
    name: z.string(),
    kind: z.enum(['icp']).describe('Kind of saved search.'),
    criteria,
    run_count: z.int().describe('Times the search has run.'),
    last_run_at: nullableDateTime,
    created_at: dateTime,
  })
  .meta({ id: 'ResearchProfile' });

export const saveResearchProfileInput = z
  .strictObject({
    id: uuid.optional().describe('When present, updates that profile in place.'),
    name: z.string().trim().min(1).max(120),
    kind: z.enum(['icp']).default('icp'),
    criteria,
  })
  .meta({
    examples: [
      {
        name: 'Berlin fintech',
        criteria: {
          description: 'Fintech companies in Berlin',
          locations: ['Berlin, Germany'],
          industries: ['Fintech'],
          titles: ['CTO', 'VP Engineering'],
          count: 50,
        },
      },
    ],
  });
export const researchProfileOutput = z.object({ profile: researchProfile });
export const listResearchProfilesOutput = z.object({ profiles: z.array(researchProfile) });
