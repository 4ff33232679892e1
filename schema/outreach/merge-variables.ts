/**
 * Merge variables in subjects and bodies: `{{first_name}}`, or with a
 * fallback used when the lead has no value, `{{first_name|there}}`. Only
 * these five exist; anything else between double braces is refused when the
 * sequence is saved, so a typo never reaches a recipient as `{{frist_name}}`.
 */
export const mergeVariables = ['first_name', 'company', 'title', 'domain', 'location'] as const;
export type MergeVariable = (typeof mergeVariables)[number];
export type MergeValues = Record<MergeVariable, string | null>;

/** Whatever stands between double braces; what it must look like is checked by parsePlaceholder. */
const placeholders = /\{\{([^{}]*)\}\}/g;
/** A name, optionally `|` and a fallback without further `|`; spaces around the name are tolerated. */
const placeholderShape = /^\s*([a-z_]+)\s*(?:\|([^|]*))?$/;

const isMergeVariable = (name: string): name is MergeVariable => (mergeVariables as readonly string[]).includes(name);
const known = mergeVariables.map((name) => `{{${name}}}`).join(', ');

function parsePlaceholder(inner: string): { variable: MergeVariable; fallback: string | undefined } | { problem: string } {
  const shape = placeholderShape.exec(inner);
  if (!shape) return { problem: `malformed merge variable {{${inner}}}: write {{name}} or {{name|fallback}}` };
  const [, name, fallback] = shape;
  if (!isMergeVariable(name!)) return { problem: `unknown merge variable {{${name}}}: use ${known}, each with an optional |fallback` };
  return { variable: name, fallback: fallback?.trim() };
}

/** What is wrong with the merge variables of a subject or body; empty when nothing is. */
export function mergeVariableProblems(text: string): string[] {
  const problems: string[] = [];
  for (const [, inner] of text.matchAll(placeholders)) {
    const parsed = parsePlaceholder(inner!);
    if ('problem' in parsed) problems.push(parsed.problem);
  }
  // Braces left once every {{…}} is blanked out (same length, so positions stay) belong to a placeholder never closed or opened.
  const stray = /\{\{|\}\}/.exec(text.replace(placeholders, (whole) => ' '.repeat(whole.length)));
  if (stray)
    problems.push(`malformed merge variable near "${text.slice(Math.max(0, stray.index - 20), stray.index + 22)}": every {{ needs its }}`);
  return problems;
}

/**
 * `text` with each placeholder replaced by the lead's value (passed through
 * `encode`, e.g. HTML escaping for a body) or, when the lead has none, by its
 * fallback as written in the template; `missing` names the first variable
 * with neither.
 */
export function fillMergeVariables(
  text: string,
  values: MergeValues,
  encode: (value: string) => string,
): { text: string } | { missing: MergeVariable } {
  let missing: MergeVariable | undefined;
  const filled = text.replace(placeholders, (whole, inner: string) => {
    const parsed = parsePlaceholder(inner);
    // Saved templates were checked; an unparsable placeholder can only come from older data, and is left as it is.
    if ('problem' in parsed) return whole;
    const value = values[parsed.variable]?.trim();
    if (value) return encode(value);
    if (parsed.fallback !== undefined) return parsed.fallback;
    missing ??= parsed.variable;
    return '';
  });
  return missing ? { missing } : { text: filled };
}
