import { load } from 'cheerio';
import type { CrawlRules, ExtractField, ExtractRules, FollowRules } from '../../schema/scrapers.ts';
import { AppError } from '../errors/app-error.ts';

const probe = load('<html><body></body></html>');

function assertSelector(selector: string, field: string) {
  try {
    probe(selector);
  } catch (error) {
    throw new AppError('validation_failed', `${field}: invalid CSS selector (${(error as Error).message})`, { field });
  }
}

/** Every selector must parse, and a scraper follows a next link or crawls, not both; a 400 names the field. */
export function assertValidSelectors(extract: ExtractRules, follow: FollowRules | null | undefined, crawl: CrawlRules | null | undefined) {
  if (extract.items) assertSelector(extract.items, 'extract.items');
  for (const [name, rule] of Object.entries(extract.fields)) assertSelector(rule.selector, `extract.fields.${name}.selector`);
  if (follow) assertSelector(follow.next, 'follow.next');
  if (follow && crawl)
    throw new AppError('validation_failed', 'crawl: a scraper either follows a next link (follow) or crawls, not both', { field: 'crawl' });
}

const valueSchema = (rule: ExtractField): Record<string, unknown> => {
  const scalar =
    rule.type === 'url' ? { type: 'string', format: 'uri' } : rule.type === 'integer' ? { type: 'integer' } : { type: rule.type };
  return rule.all ? { type: 'array', items: scalar } : { anyOf: [scalar, { type: 'null' }] };
};

/** The JSON Schema of what `extract` produces: one object of fields, or `{ items: [...] }` (always, for a crawl). */
export function deriveOutputSchema(extract: ExtractRules, crawls = false): Record<string, unknown> {
  const record = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(extract.fields).map(([name, rule]) => [name, valueSchema(rule)])),
    required: Object.keys(extract.fields),
  };
  if (!extract.items && !crawls) return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...record };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { items: { type: 'array', items: record } },
    required: ['items'],
  };
}
