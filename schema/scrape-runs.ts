import { z } from 'zod';
import { exampleId, dateTime, nullableDateTime, uuid } from './common.ts';
import { cssSelector } from './scrapers.ts';

export const runStatuses = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export const runStatus = z
  .enum(runStatuses)
  .describe('`completed` is the terminal state to poll for; `failed` and `cancelled` also end a run.');

export const scrapeOptions = z
  .strictObject({
    max_pages: z.int().min(1).max(10_000).optional().describe("Pages at most (default: the scraper's crawl or follow max_pages, or 1)."),
    timeout_ms: z.int().min(1000).max(120_000).optional().describe('Budget for each page (default 30 s).'),
    wait_for: cssSelector.optional().describe('Browser engine: wait for this selector before extracting.'),
    wait: z
      .boolean()
      .optional()
      .describe(
        'Hold the request (up to about 110 s) and answer 200 with the completed result if the run finishes in time; 202 as usual otherwise.',
      ),
  })
  .meta({ id: 'ScrapeOptions' });

const httpUrl = z
  .url({ protocol: /^https?$/, hostname: z.regexes.hostname })
  .max(2048)
  .describe('The page to start from (http or https).');

export const startScrapeInput = z
  .strictObject({
    scraperId: uuid.describe('The scraper to run.'),
    url: httpUrl,
    options: scrapeOptions.optional(),
  })
  .meta({ examples: [{ scraperId: exampleId, url: 'https://example.com/products', options: { max_pages: 2 } }] });

const acceptedScrape = z
  .object({
    success: z.boolean(),
    data: z.object({
      runId: uuid,
      status: runStatus,
      message: z.string(),
    }),
    metadata: z.object({
      scraperId: uuid,
      timestamp: dateTime,
      creditsRemaining: z.int().describe('Crawl credits left in the workspace.'),
    }),
  })
  .meta({ id: 'ScrapeAccepted', description: '202: the run is queued; poll it.' });

const completedScrape = z
  .object({
    success: z.boolean(),
    data: z.unknown().describe('The extracted data.'),
    metadata: z.object({
      scraperId: uuid,
      runId: uuid,
      timestamp: dateTime,
      tokensUsed: z.int().describe('LLM tokens spent (scrapes use none).'),
      creditsCost: z.int().describe('Crawl credits the run cost, overage included.'),
      creditsRemaining: z.int().describe('Crawl credits left in the workspace.'),
    }),
  })
  .meta({ id: 'ScrapeCompleted', description: '200: the completed result, with `options.wait`.' });

export const startScrapeOutput = z.union([acceptedScrape, completedScrape]);

export const scrapeRun = z
  .object({
    id: uuid,
    scraperId: uuid,
    url: z.string(),
    status: runStatus,
    pages: z.int().describe('Pages fetched and used.'),
    pagesCharged: z.int().describe('Pages paid for with credits (failed pages are not charged).'),
    creditsCharged: z.int().describe('Crawl credits spent from the balance.'),
    overageCredits: z.int().describe('Credits spent beyond the balance with overage on.'),
    failures: z.array(z.object({ url: z.string(), reason: z.string() })).describe('Pages that could not be fetched.'),
    error: z.string().nullable().describe('Why the run failed or stopped early.'),
    errorCode: z.string().nullable().describe('Machine code for `error`, for example `url_not_allowed`.'),
    schedule_id: uuid.nullable().describe('The schedule that started it, or null.'),
    created_at: dateTime,
    started_at: nullableDateTime,
    finished_at: nullableDateTime,
  })
  .meta({ id: 'ScrapeRun' });

export const runIdInput = z.object({ runId: uuid });
export const cancelScrapeRunOutput = z.object({ run: scrapeRun });
export const dataFormats = ['json', 'csv', 'jsonl'] as const;
export const scrapeDataInput = z.object({
  scraperId: uuid,
  runId: uuid,
  format: z
    .enum(dataFormats)
    .default('json')
    .describe('`json`, or a REST download: `csv` (fields as columns) or `jsonl` (an item a line).'),
});
export const scrapeDataOutput = z.object({
  runId: uuid,
  status: runStatus,
  data: z.unknown().describe('The extracted JSON, once completed.'),
});

export const listScraperRunsInput = z.object({
  id: uuid.describe('The scraper whose runs to list.'),
  status: runStatus.optional().describe('Only runs in this status.'),
  limit: z.int().min(1).max(100).default(50).describe('Runs to answer, newest first: 50 by default, at most 100.'),
});

export const scraperRunSummary = z
  .object({
    id: uuid,
    status: runStatus,
    url: z.string().describe('The page the run started from.'),
    pages: z.int().describe('Pages fetched and used (so far, while it works).'),
    credits: z.int().describe('Crawl credits the run cost, overage included (so far, while it works).'),
    created_at: dateTime,
    finished_at: nullableDateTime,
    error: z.string().nullable().describe('Why the run failed or stopped early.'),
    schedule_id: uuid.nullable().describe('The schedule that started it, or null.'),
  })
  .meta({ id: 'ScraperRunSummary' });

export const listScraperRunsOutput = z.object({
  runs: z.array(scraperRunSummary).describe('Newest first, at most `limit`.'),
  total: z.int().describe('Runs of the scraper matching `status`, past the limit too.'),
});
