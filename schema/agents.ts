import { z } from 'zod';
import { exampleId, brandFilter, dateTime, nullableDateTime, uuid } from './common.ts';

export const agentRunStatuses = ['queued', 'planning', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;
export type AgentRunStatus = (typeof agentRunStatuses)[number];
export const finishedAgentRunStatuses: readonly AgentRunStatus[] = ['completed', 'failed', 'cancelled'];

export const agentBehaviors = ['lead_generation', 'research', 'enrichment'] as const;

export const artifact = z
  .object({
    id: uuid,
    name: z
      .string()
      .describe('File name: `leads.csv` (the leads the run saved) or `result.json` (the structured result, with `output_schema`).'),
    mime_type: z.string().describe('`text/csv` or `application/json`.'),
    row_count: z.int().describe('CSV rows without the header, or 1 for `result.json`.'),
    size_bytes: z.int().describe('Size of the file in bytes.'),
    preview: z
      .record(z.string(), z.unknown())
      .describe(
        'A glimpse of the content: `{ columns, rows }` with the first 5 rows of a CSV (each an object by column), or `{ keys }` with the top-level keys of a JSON result.',
      ),
    download_url: z.string().describe('Signed URL valid one hour from this answer; needs no API key. Expired or altered, it answers 403.'),
  })
  .meta({ id: 'AgentArtifact' });

export const agentRun = z
  .object({
    id: uuid,
    conversation_id: uuid.describe('The conversation the run belongs to: follow-up runs share it and inherit its context and playbook.'),
    goal: z.string().describe('What the run was asked to do.'),
    behavior: z
      .enum(agentBehaviors)
      .describe(
        '`lead_generation` (find and save leads), `research` (answer the goal; saves leads only when asked) or `enrichment` (fill in what stored leads lack).',
      ),
    status: z
      .enum(agentRunStatuses)
      .describe(
        '`queued` (waiting for a worker), `planning` (deciding its first searches), `running`, `paused` (waiting for an answer to the question in `result_summary`: ' +
          'reply to continue), `completed`, `failed`, `cancelled`. The last three are finished.',
      ),
    result_summary: z
      .string()
      .nullable()
      .describe(
        'The result; while `paused`, the question the agent asks. Says when no language model was used, and when the run stopped early (credits, lead limit, caps).',
      ),
    tokens_used: z
      .int()
      .describe("Language-model tokens used so far (prompt and completion, as the model's API reports them); 0 without a model."),
    leads_saved: z.int().describe('Leads this run stored so far (duplicates of stored leads are not counted).'),
    pages_fetched: z.int().describe('Web pages fetched so far (searches not included).'),
    credits_charged: z
      .int()
      .describe('Agent credits taken so far: 1 per 1,000 model tokens (rounded up per model call) and 1 per page fetched.'),
    overage_credits: z.int().describe('Agent credits spent beyond the balance while overage was on.'),
    error: z
      .string()
      .nullable()
      .describe(
        'Why the run failed, or the code of why it stopped early (`insufficient_credits`, `lead_limit`; `search_not_configured` when SEARCH_URL is unset and no model is); null otherwise.',
      ),
    parent_run_id: uuid
      .nullable()
      .describe('The run this one follows up (a reply to a finished or interrupted run); null for a first run.'),
    profile_id: uuid.nullable().describe('The research profile steering the run, if any.'),
    brand_id: uuid.describe('The brand the run works for (its saved leads go there).'),
    started_at: nullableDateTime.describe('When a worker took the run up.'),
    finished_at: nullableDateTime,
    created_at: dateTime,
  })
  .meta({ id: 'AgentRun' });

export const agentRunWithArtifacts = agentRun
  .extend({ artifacts: z.array(artifact).describe('Files of a finished run (empty before it finishes).') })
  .meta({ id: 'AgentRunWithArtifacts' });

const limits = z
  .object({
    max_leads: z.int().min(1).max(500).optional().describe('Stop after saving this many leads (at most 500; default 50).'),
    max_pages: z.int().min(1).max(200).optional().describe('Stop after fetching this many pages (at most 200; default 60).'),
    max_tokens: z.int().min(1_000).max(2_000_000).optional().describe('Stop after the model has used this many tokens (default 200,000).'),
  })
  .strict()
  .describe('Caps on the run. The run ends `completed` when it reaches one, saying which in `result_summary`.');

export const startAgentRunInput = z
  .object({
    goal: z.string().trim().min(1).max(4_000).describe('The natural-language goal, e.g. "CTOs of fintech companies in Berlin".'),
    conversation_id: uuid
      .optional()
      .describe('An existing conversation of this workspace to continue: the run inherits its context and playbook.'),
    behavior: z
      .enum(agentBehaviors)
      .default('lead_generation')
      .describe(
        '`lead_generation` (default), `research`, or `enrichment`: fill the missing email, title, domain, phone, linkedin_url, location and auto-research columns of the leads in `lead_ids` or `lead_filter`, never overwriting a value.',
      ),
    lead_ids: z.array(uuid).min(1).max(500).optional().describe('For `enrichment`: the leads to fill in (1–500 of this workspace).'),
    lead_filter: z
      .object({
        q: z.string().max(200).optional().describe('Text the lead list searches for.'),
        status: z.string().max(40).optional().describe('A lead status, as the lead list filters it.'),
        agent_run_id: uuid.optional().describe('The leads an agent run saved.'),
      })
      .strict()
      .optional()
      .describe("For `enrichment` without `lead_ids`: the lead list's filters; the newest 500 leads they select."),
    context: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Facts the agent should use (any JSON object), merged over the conversation's."),
    options: limits.optional(),
    output_schema: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('A JSON Schema the final structured result must conform to; the result is then kept as the artifact `result.json`.'),
    profile_id: uuid
      .optional()
      .describe(
        'A saved research profile whose criteria (industries, locations, titles, keywords, exclusions, required fields) steer the run.',
      ),
    skill_ids: z
      .array(uuid)
      .max(10)
      .optional()
      .describe("Skills whose instructions are added to the run's system prompt (at most 10). They never add tools."),
    brand_id: uuid.optional().describe("The brand to work for; default the credential's brand."),
  })
  .strict()
  .meta({
    examples: [{ goal: 'CTOs of fintech companies in Berlin', behavior: 'lead_generation', options: { max_leads: 20, max_pages: 30 } }],
  });

export const startAgentRunOutput = z
  .object({
    run_id: uuid,
    conversation_id: uuid,
    status: z
      .enum(['queued', 'resumed'])
      .meta({ id: 'AgentRunStartStatus', description: '`queued` for a new run; `resumed` when a reply continued a paused run.' }),
  })
  .meta({ id: 'AgentRunStarted', description: 'The run a start or a reply set going.' });

export const listAgentRunsInput = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('How many runs, newest first (at most 100; default 20).'),
  brand: brandFilter.describe("A brand id, or `all` for the whole workspace; default the credential's brand."),
});

export const agentRunIdInput = z.object({ id: uuid.describe('The run.') });

export const replyToAgentRunInput = z
  .object({
    id: uuid.describe('The run.'),
    message: z
      .string()
      .trim()
      .min(1)
      .max(4_000)
      .describe("The answer to a paused run's question, or the next instruction for a follow-up run."),
    interrupt: z
      .boolean()
      .default(false)
      .describe('For a run still working: cancel it and start a new run with the message. Without it such a run answers 409.'),
  })
  .strict()
  .meta({ examples: [{ id: exampleId, message: 'Only companies with 50 to 200 employees.', interrupt: true }] });

/** The run list is a bare array and a run a bare object, as GET /api/endpoints answers. */
export const agentRunsOutput = z.array(agentRun).describe('Newest first, without artifacts.');
