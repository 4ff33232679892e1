import { z } from 'zod';
import { mergeVariableProblems } from './merge-variables.ts';
import { plainText, sanitizeBody } from './sequence-html.ts';
import { exampleId, brandFilter, dateTime, deletion, uuid } from '../common.ts';

export const threadModes = ['new', 'reply'] as const;

const mergeRules =
  "Merge variables: {{first_name}} (the first word of the lead's full name), {{company}}, {{title}}, {{domain}}, {{location}}, each with an optional fallback for leads without the value, e.g. {{first_name|there}}; " +
  'a lead missing a variable that has no fallback is skipped for that step. Any other {{…}} is refused (400 naming the field).';

/** Merge variables checked where they are written, so the 400 names the subject or body at fault. */
const checkMergeVariables = (text: string, ctx: z.core.$RefinementCtx<string>) => {
  for (const problem of mergeVariableProblems(text)) ctx.addIssue({ code: 'custom', message: problem, input: text });
};

const subject = z
  .string()
  .max(300)
  .refine((text) => !/[\r\n]/.test(text), 'must be one line')
  .superRefine(checkMergeVariables)
  .default('')
  .describe(
    `Subject line, up to 300 characters; required on a \`new\` step, empty on a \`reply\` step (sent as "Re: " and the subject that opened the thread). ${mergeRules}`,
  );

const bodyHtml = z
  .string()
  .min(1)
  .max(100_000)
  // What is stored and checked is the sanitized body, so nothing the sanitizer drops can matter afterwards.
  .overwrite(sanitizeBody)
  .refine((html) => plainText(html) !== '', 'has no text left once sanitized')
  .superRefine(checkMergeVariables)
  .describe(
    `The message as HTML. Stored sanitized: only <p>, <br>, <strong> and <a href> with http, https or mailto links are kept; other tags are removed (their text kept, except scripts and styles), as are all other attributes. ${mergeRules}`,
  );

const variantInput = z
  .strictObject({ subject, body_html: bodyHtml })
  .describe("An alternative version of the step: same rules as the step's own subject and body.");

type Version = { subject: string };
type StepInput = Version & { thread_mode: (typeof threadModes)[number]; variants?: Version[] };

/** A `new` step opens a thread and needs a subject; a `reply` step answers in it and has none: for its own version and each variant. */
function checkSubjects(step: StepInput, ctx: z.core.$RefinementCtx<StepInput>) {
  const versions: Array<[Version, PropertyKey[]]> = [
    [step, ['subject']],
    ...(step.variants ?? []).map((v, i): [Version, PropertyKey[]] => [v, ['variants', i, 'subject']]),
  ];
  for (const [version, path] of versions) {
    if (step.thread_mode === 'new' && !version.subject.trim())
      ctx.addIssue({ code: 'custom', path, message: 'required on a new step', input: version.subject });
    if (step.thread_mode === 'reply' && version.subject !== '') {
      ctx.addIssue({
        code: 'custom',
        path,
        message: 'must be empty on a reply step (it is sent as "Re: " and the subject that opened the thread)',
        input: version.subject,
      });
    }
  }
}

const stepInput = z
  .strictObject({
    subject,
    body_html: bodyHtml,
    wait_days: z
      .int()
      .min(0)
      .max(90)
      .default(0)
      .describe('Days to wait after the previous step, 0 to 90 (default 0); 0 on the first step.'),
    thread_mode: z
      .enum(threadModes)
      .default('new')
      .describe(
        '`new` starts a thread with its own subject; `reply` answers in the thread of the latest `new` step. The first step is always `new`.',
      ),
    variants: z
      .array(variantInput)
      .max(4)
      .optional()
      .describe(
        "Up to 4 A/B alternatives to the step's own subject and body; each lead gets one version, chosen evenly and always the same for the same lead. Pro and Business plans only (403 plan_required).",
      ),
  })
  .superRefine(checkSubjects);

const steps = z
  .array(stepInput)
  .min(1)
  .max(10)
  .superRefine((list, ctx) => {
    const first = list[0];
    if (first && first.wait_days !== 0)
      ctx.addIssue({ code: 'custom', path: [0, 'wait_days'], message: 'must be 0 on the first step', input: first.wait_days });
    if (first && first.thread_mode !== 'new')
      ctx.addIssue({ code: 'custom', path: [0, 'thread_mode'], message: 'must be new on the first step', input: first.thread_mode });
  })
  .describe('1 to 10 steps, sent in order.');

const name = z.string().trim().min(1).max(120).describe('Name, 1 to 120 characters.');
const description = z.string().max(500).nullable().describe('What the sequence is for, up to 500 characters, or null.');

export const createSequenceInput = z
  .strictObject({
    name,
    description: description.optional(),
    steps,
    brand_id: uuid.optional().describe("The brand the sequence belongs to (default: the credential's brand)."),
  })
  .meta({
    examples: [
      {
        name: 'Intro',
        description: 'First touch and one follow-up.',
        steps: [
          {
            subject: 'Quick question, {{first_name|there}}',
            body_html: '<p>Hi {{first_name|there}},</p><p>Is lead research at {{company|your team}} still done by hand?</p>',
          },
          { body_html: '<p>Just bumping this up in your inbox.</p>', wait_days: 3, thread_mode: 'reply' },
        ],
      },
    ],
  });

export const updateSequenceInput = z
  .strictObject({
    id: uuid.describe("The sequence's id."),
    name: name.optional(),
    description: description.optional(),
    steps: steps
      .optional()
      .describe(
        'The new steps, replacing all of them (same rules as on create). An active campaign sends the new steps to leads that have not had them yet.',
      ),
    brand_id: uuid.optional().describe('Moves the sequence to this brand of the workspace.'),
  })
  .refine((body) => body.name !== undefined || body.description !== undefined || body.steps !== undefined || body.brand_id !== undefined, {
    message: 'nothing to update: give name, description, steps or brand_id',
    path: ['name'],
  })
  .meta({ examples: [{ id: exampleId, name: 'Intro (short)', description: 'First touch only.' }] });

export const sequenceIdInput = z.object({ id: uuid.describe("The sequence's id.") });
export const listSequencesInput = z.object({
  brand: brandFilter.describe("A brand id to narrow to one brand, or `all` for the whole workspace; default the credential's brand."),
});

const variant = z
  .object({ subject: z.string().describe('Subject line (empty on a reply step).'), body_html: z.string().describe('Sanitized HTML body.') })
  .meta({ id: 'SequenceVariant' });

export const sequenceStep = z
  .object({
    subject: z.string().describe('Subject line (empty on a reply step, which is sent as "Re: " and the subject that opened the thread).'),
    body_html: z.string().describe('Sanitized HTML body, with its merge variables.'),
    wait_days: z.int().describe('Days to wait after the previous step.'),
    thread_mode: z.enum(threadModes).describe('`new` or `reply`.'),
    variants: z.array(variant).describe("A/B alternatives to the step's own version (empty when none)."),
  })
  .meta({ id: 'SequenceStep' });
export type SequenceStep = z.infer<typeof sequenceStep>;

export const sequence = z
  .object({
    id: uuid,
    name: z.string().describe('Name.'),
    description: z.string().nullable().describe('What the sequence is for.'),
    steps: z.array(sequenceStep).describe('The steps, in sending order.'),
    brand_id: uuid.describe('The brand the sequence belongs to.'),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Sequence' });
export type SequenceOut = z.infer<typeof sequence>;

export const sequenceOutput = z.object({ sequence });
export const listSequencesOutput = z.object({ sequences: z.array(sequence).describe('The sequences, newest first.') });
export const deleteSequenceOutput = deletion;
