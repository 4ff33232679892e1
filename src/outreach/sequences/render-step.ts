import { createHash } from 'node:crypto';
import type { SequenceOut, SequenceStep } from '../../../schema/outreach/sequences.ts';
import { fillMergeVariables, type MergeValues } from '../../../schema/outreach/merge-variables.ts';
import { escapeHtml, plainText } from '../../../schema/outreach/sequence-html.ts';

/** The lead fields merge variables read (what lead-outreach.service's OutreachLead carries). */
export interface MergeLead {
  id: string;
  full_name: string | null;
  company: string | null;
  title: string | null;
  domain: string | null;
  location: string | null;
}

export type RenderedStep = { subject: string; html: string; text: string } | { skipped: string };

/**
 * The version of a step a lead gets: 0 is the step's own, k its variant k.
 * Chosen from a hash of the lead's id, so it is even across leads and the
 * same for a lead every time the engine asks; a lead also keeps its arm
 * across steps with the same number of versions, so an A/B test compares
 * whole paths through the sequence.
 */
export function variantFor(step: Pick<SequenceStep, 'variants'>, leadId: string): number {
  const versions = 1 + step.variants.length;
  if (versions === 1) return 0;
  return createHash('sha256').update(leadId).digest().readUInt32BE(0) % versions;
}

function versionOf(step: SequenceStep, variantIndex: number): { subject: string; body_html: string } {
  const version = variantIndex === 0 ? step : step.variants[variantIndex - 1];
  if (!version) throw new RangeError(`the step has no version ${variantIndex} (it has ${1 + step.variants.length})`);
  return version;
}

const firstWord = (text: string | null) => text?.trim().split(/\s+/)[0] || null;

const mergeValues = (lead: MergeLead): MergeValues => ({
  first_name: firstWord(lead.full_name),
  company: lead.company,
  title: lead.title,
  domain: lead.domain,
  location: lead.location,
});

/** A subject is one header line: a value's line breaks become spaces. */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ');

/** The step that opened the thread a reply step answers in: the latest `new` step before it (the first step at the latest). */
function threadOpener(sequence: Pick<SequenceOut, 'steps'>, stepIndex: number): SequenceStep {
  for (let i = stepIndex - 1; i > 0; i--) if (sequence.steps[i]!.thread_mode === 'new') return sequence.steps[i]!;
  return sequence.steps[0]!;
}

/**
 * One step of a sequence for one lead, as the engine sends it: subject, HTML
 * (lead values HTML-escaped; fallbacks are template text, already
 * sanitized) and its plain-text part. A reply step's subject is "Re: " and
 * the subject that opened the thread, rendered for this lead with the version
 * the lead got of that step; without the "Re: " when the lead has no such
 * thread (`inThread` false: the message that was to open it did not go out),
 * as the reply step then opens it. A lead missing a variable with no
 * fallback is skipped, with the reason (`missing first_name`).
 */
export function renderStep(
  sequence: Pick<SequenceOut, 'steps'>,
  stepIndex: number,
  variantIndex: number,
  lead: MergeLead,
  inThread = true,
): RenderedStep {
  const step = sequence.steps[stepIndex];
  if (!step) throw new RangeError(`the sequence has no step ${stepIndex} (it has ${sequence.steps.length})`);
  const values = mergeValues(lead);
  const opener = step.thread_mode === 'reply' ? threadOpener(sequence, stepIndex) : undefined;
  const subjectTemplate = opener ? versionOf(opener, variantFor(opener, lead.id)).subject : versionOf(step, variantIndex).subject;
  const subject = fillMergeVariables(subjectTemplate, values, oneLine);
  if ('missing' in subject) return { skipped: `missing ${subject.missing}` };
  const html = fillMergeVariables(versionOf(step, variantIndex).body_html, values, escapeHtml);
  if ('missing' in html) return { skipped: `missing ${html.missing}` };
  return { subject: opener && inThread ? `Re: ${subject.text}` : subject.text, html: html.text, text: plainText(html.text) };
}
