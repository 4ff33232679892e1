import { z } from 'zod';
import { exampleId, dateTime, uuid } from './common.ts';

/** Keys of extracted objects; they become JSON keys of the results. */
const fieldName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'must start with a letter or underscore and use letters, digits, _ or - (at most 64)');

export const cssSelector = z.string().min(1).max(500).describe('A CSS selector.');

export const valueTypes = ['string', 'number', 'integer', 'boolean', 'url'] as const;

export const extractField = z
  .strictObject({
    selector: cssSelector.describe('CSS selector of the element holding the value, inside the item when `items` is set.'),
    attribute: z.string().min(1).max(100).optional().describe("Attribute to read (for example `href`); the element's text when absent."),
    all: z.boolean().default(false).describe('Collect every match as an array instead of the first match.'),
    type: z
      .enum(valueTypes)
      .default('string')
      .describe('Value type: numbers parse text like "1,299.00", `url` values are made absolute against the page, text is trimmed.'),
  })
  .meta({ id: 'ExtractField' });

export const extractRules = z
  .strictObject({
    items: cssSelector.optional().describe('Selector of a repeated element; the result is then `{ "items": [ {fields...} ] }`.'),
    fields: z
      .record(fieldName, extractField)
      .refine((fields) => Object.keys(fields).length >= 1 && Object.keys(fields).length <= 50, 'must name 1 to 50 fields')
      .describe('The values to extract, by output key.'),
  })
  .meta({ id: 'ExtractRules' });

export type ExtractField = z.infer<typeof extractField>;
export type ExtractRules = z.infer<typeof extractRules>;

export const followRules = z
  .strictObject({
    next: cssSelector.describe('Selector of the next-page link.'),
    max_pages: z.int().min(1).max(100).describe('Pages to visit at most, the first included.'),
  })
  .meta({ id: 'FollowRules' });

export type FollowRules = z.infer<typeof followRules>;

const pathGlob = z.string().min(1).max(300).regex(/^\//, 'must start with / (it matches the URL path)').describe('A URL path glob.');

export const crawlStarts = ['links', 'sitemap'] as const;

export const crawlRules = z
  .strictObject({
    start: z
      .enum(crawlStarts)
      .default('links')
      .describe("`links`: same-host links from the run's URL; `sitemap`: the pages the site's sitemaps list."),
    include: z
      .array(pathGlob)
      .max(50)
      .default([])
      .describe('Only pages whose path matches one of these are fetched; every page when empty.'),
    exclude: z.array(pathGlob).max(50).default([]).describe('Pages whose path matches one of these are never fetched.'),
    max_pages: z.int().min(1).max(10_000).default(100).describe('Pages to fetch at most.'),
    max_depth: z
      .int()
      .min(0)
      .max(20)
      .default(5)
      .describe('`links`: how many links away from the start page to go (0: the start page only).'),
  })
  .meta({ id: 'CrawlRules' });

export type CrawlRules = z.infer<typeof crawlRules>;

export const engines = ['http', 'browser'] as const;
export const jsonSchemaObject = z.record(z.string(), z.unknown()).describe('A JSON Schema (draft 2020-12 or 07).');

const scraperFields = {
  name: z.string().trim().min(1).max(120).describe('Display name.'),
  engine: z.enum(engines).describe('`http` fetches HTML (fast, 1 credit a page); `browser` renders pages in Chromium (3 credits a page).'),
  extract: extractRules,
  follow: followRules.nullable().describe('Pagination: items are concatenated across pages.'),
  crawl: crawlRules
    .nullable()
    .describe(
      'A crawl of many pages instead of `follow`: each page extracted with `extract`, items concatenated (a page is one item without `items`).',
    ),
  output_schema: jsonSchemaObject.describe('JSON Schema results must conform to; derived from `extract` when not given.'),
  respect_robots: z.boolean().describe('Skip pages robots.txt disallows.'),
  insecure_tls: z
    .boolean()
    .describe(
      'Accept invalid, expired or self-signed certificates on https pages (off: certificates are verified). It never lets a scrape reach an address the address guard refuses.',
    ),
  folder_id: uuid.nullable().describe('The folder the scraper is filed in (see /api/folders), or null for none.'),
};

export const scraper = z
  .object({
    id: uuid,
    ...scraperFields,
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Scraper' });
export type Scraper = z.infer<typeof scraper>;

export const createScraperInput = z
  .strictObject({
    name: scraperFields.name,
    engine: scraperFields.engine.default('http'),
    extract: extractRules,
    follow: followRules.optional(),
    crawl: crawlRules.optional(),
    output_schema: scraperFields.output_schema.optional(),
    respect_robots: scraperFields.respect_robots.default(true),
    insecure_tls: scraperFields.insecure_tls.default(false),
    folder_id: scraperFields.folder_id.optional(),
  })
  .meta({
    examples: [
      {
        name: 'Product list',
        extract: {
          items: '.product',
          fields: {
            title: { selector: 'h2' },
            price: { selector: '.price', type: 'number' },
            link: { selector: 'a', attribute: 'href', type: 'url' },
          },
        },
        follow: { next: 'a.next', max_pages: 5 },
      },
    ],
  });

export const updateScraperInput = z
  .strictObject({
    id: uuid,
    name: scraperFields.name.optional(),
    engine: scraperFields.engine.optional(),
    extract: extractRules.optional(),
    follow: followRules.nullable().optional(),
    crawl: crawlRules.nullable().optional(),
    output_schema: scraperFields.output_schema.nullable().optional().describe('A new schema, or null to derive it from `extract` again.'),
    respect_robots: scraperFields.respect_robots.optional(),
    insecure_tls: scraperFields.insecure_tls.optional(),
    folder_id: scraperFields.folder_id.optional().describe('A folder of the workspace to file the scraper in, or null to file it in none.'),
  })
  .meta({ examples: [{ id: exampleId, name: 'Product list (first page)', follow: null }] });

export const listScrapersInput = z.object({ folder_id: uuid.optional().describe('Only the scrapers filed in this folder.') });

export const scraperIdInput = z.object({ id: uuid });
export const scraperOutput = z.object({ scraper });
export const listScrapersOutput = z.object({ scrapers: z.array(scraper).describe('Newest first.') });
export const deleteScraperOutput = z.object({
  ok: z.boolean(),
  id: uuid,
  runs_deleted: z.int().describe('Runs of the scraper deleted with it, their results included.'),
});
