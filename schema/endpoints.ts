import { z } from 'zod';
import { exampleId, dateTime, deletion, uuid } from './common.ts';
import { jsonSchemaObject } from './scrapers.ts';

export const slug = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be lowercase letters and digits separated by single dashes')
  .describe("The endpoint's path segment under /v1/e/, unique in the workspace.");

const endpointFields = {
  slug,
  name: z.string().trim().min(1).max(120).describe('Display name.'),
  description: z.string().max(2000).describe('What the endpoint returns.'),
  method: z.enum(['GET', 'POST']).describe('GET takes parameters in the query string, POST in a JSON body.'),
  scraper_id: uuid.describe('The scraper backing it.'),
  url_template: z
    .string()
    .min(1)
    .max(2048)
    .describe(
      'The page to scrape, with `{param}` placeholders filled (URL-encoded) from the parameters, e.g. https://shop.example/search?q={q}&page={page}.',
    ),
  param_schema: jsonSchemaObject.describe(
    'JSON Schema (type object) the parameters must satisfy; parameters it does not name are refused.',
  ),
  output_schema: jsonSchemaObject.describe("JSON Schema of the data returned; the scraper's by default."),
  freshness: z
    .enum(['cached_ok', 'always_fresh'])
    .describe('`cached_ok` answers from a fresh cached result when there is one; `always_fresh` always scrapes.'),
  cache_ttl_seconds: z.int().min(0).max(604_800).describe('How long a result stays fresh.'),
  mode: z.enum(['sync', 'async']).describe('`sync` waits up to about 110 s for the result; `async` answers 202 with a run id at once.'),
};

const endpointDrift = z
  .object({
    at: dateTime.describe('When it was found.'),
    run_id: uuid.describe('Its run.'),
    errors: z.array(z.string()).describe('What was wrong.'),
  })
  .meta({ id: 'EndpointDrift' });

export const publishedEndpoint = z
  .object({
    id: uuid,
    ...endpointFields,
    health: z
      .enum(['ok', 'drifted'])
      .describe('`drifted`: the last result failed the output schema or had no items where the last healthy one had some.'),
    drift: endpointDrift.nullable().describe('The drifted result, or null.'),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'PublishedEndpoint' });
export type PublishedEndpoint = z.infer<typeof publishedEndpoint>;

export const createEndpointInput = z
  .strictObject({
    slug,
    name: endpointFields.name,
    description: endpointFields.description.default(''),
    method: endpointFields.method.default('GET'),
    scraper_id: endpointFields.scraper_id,
    url_template: endpointFields.url_template,
    param_schema: endpointFields.param_schema.default({ type: 'object', properties: {} }),
    output_schema: endpointFields.output_schema.optional(),
    freshness: endpointFields.freshness.default('cached_ok'),
    cache_ttl_seconds: endpointFields.cache_ttl_seconds.default(3600),
    mode: endpointFields.mode.default('sync'),
  })
  .meta({
    examples: [
      {
        slug: 'shop-search',
        name: 'Shop search',
        method: 'GET',
        scraper_id: exampleId,
        url_template: 'https://example.com/search?q={q}',
        param_schema: { type: 'object', properties: { q: { type: 'string', description: 'Search words.' } }, required: ['q'] },
      },
    ],
  });

export const updateEndpointInput = z
  .strictObject({
    id: uuid,
    slug: slug.optional(),
    name: endpointFields.name.optional(),
    description: endpointFields.description.optional(),
    method: endpointFields.method.optional(),
    scraper_id: endpointFields.scraper_id.optional(),
    url_template: endpointFields.url_template.optional(),
    param_schema: endpointFields.param_schema.optional(),
    output_schema: endpointFields.output_schema.nullable().optional().describe("A new schema, or null for the scraper's."),
    freshness: endpointFields.freshness.optional(),
    cache_ttl_seconds: endpointFields.cache_ttl_seconds.optional(),
    mode: endpointFields.mode.optional(),
  })
  .meta({ examples: [{ id: exampleId, freshness: 'always_fresh', cache_ttl_seconds: 600 }] });

export const endpointIdInput = z.object({ id: uuid });
export const endpointOutput = z.object({ endpoint: publishedEndpoint });
export const listEndpointsOutput = z.array(publishedEndpoint).describe('Published endpoints, newest first.');
export const deleteEndpointOutput = deletion;

export const invokeInput = z
  .object({
    slug,
    params: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("The endpoint's parameters (REST: the query string, or the JSON body for POST)."),
  })
  .meta({ examples: [{ slug: 'shop-search', params: { q: 'running shoes' } }] });

export const invokeOutput = z
  .object({
    status: z.enum(['completed', 'queued', 'running']).describe('`completed` with `data`, or the run to poll.'),
    runId: uuid.nullable().describe('The scrape run behind the answer (null for a cache hit).'),
    data: z.unknown().describe('The extracted data, once completed.'),
    cache: z.enum(['HIT', 'MISS']).describe('Whether the data came from the cache.'),
    ageSeconds: z.int().describe('Age of the data in seconds.'),
  })
  .meta({ id: 'EndpointCall', description: "A published endpoint's answer: its data, or the run to poll." });

export const endpointResultInput = z.object({ slug, runId: uuid });
