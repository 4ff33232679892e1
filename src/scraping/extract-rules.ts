import { load } from 'cheerio';
import type { ExtractField, ExtractRules, FollowRules } from '../../schema/scrapers.ts';
import { AppError } from '../errors/app-error.ts';

const probe = load('<html><body></body></html>');

function assertSelector(selector: string, field: string) {
  try {
    probe(selector);
  } catch (error) {
    throw new AppError('validation_failed', `${field}: invalid CSS selector (${(error as Error).message})`, { field });
  }
}

/** Every selector must parse; a 400 names the one that does not. */
export function assertValidSelectors(extract: ExtractRules, follow: FollowRules | null | undefined) {
  if (extract.items) assertSelector(extract.items, 'extract.items');
  for (const [name, rule] of Object.entries(extract.fields)) assertSelector(rule.selector, `extract.fields.${name}.selector`);
  if (follow) assertSelector(follow.next, 'follow.next');
}

const valueSchema = (rule: ExtractField): Record<string, unknown> => {
  const scalar =
    rule.type === 'url' ? { type: 'string', format: 'uri' } : rule.type === 'integer' ? { type: 'integer' } : { type: rule.type };
  return rule.all ? { type: 'array', items: scalar } : { anyOf: [scalar, { type: 'null' }] };
};

/** The JSON Schema of what `extract` produces: one object of fields, or `{ items: [...] }`. */
export function deriveOutputSchema(extract: ExtractRules): Record<string, unknown> {
  const record = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(extract.fields).map(([name, rule]) => [name, valueSchema(rule)])),
    required: Object.keys(extract.fields),
  };
  if (!extract.items) return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...record };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { items: { type: 'array', items: record } },
    required: ['items'],
  };
}
