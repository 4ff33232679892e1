import { z } from 'zod';
import { dateTime, exampleId, nullableDateTime, okFlag, uuid } from './common.ts';
import { scrapeOptions } from './scrape-runs.ts';

const cron = z
  .string()
  .trim()
  .min(9)
  .max(200)
  .describe('A cron expression of 5 fields: minute, hour, day of month, month, day of week (`0 9 * * 1-5`: 09:00 on weekdays).');
const timezone = z.string().min(1).max(64).describe('The IANA time zone the expression is read in, e.g. `Europe/Berlin`.');
const scheduleUrl = z
  .url({ protocol: /^https?$/, hostname: z.regexes.hostname })
  .max(2048)
  .describe('The page each run starts from (http or https).');
const scheduleOptions = scrapeOptions.omit({ wait: true }).describe("Each run's options (as a run's, without `wait`).");

export const schedule = z
  .object({
    id: uuid,
    scraper_id: uuid.describe('The scraper it runs.'),
    url: z.string().describe('The page each run starts from.'),
    cron: z.string().describe('The cron expression (5 fields).'),
    timezone: z.string().describe('The IANA time zone it is read in.'),
    options: scheduleOptions,
    enabled: z.boolean().describe('False: no run starts until it is enabled again.'),
    next_run_at: nullableDateTime.describe('When the next run starts (null while disabled).'),
    last_run_at: nullableDateTime.describe('The due time of the last run it started, or null.'),
    last_run_id: uuid.nullable().describe('The last run it started (GET /api/scrape/runs/{runId}), or null.'),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Schedule' });
export type ScheduleOut = z.infer<typeof schedule>;

export const createScheduleInput = z
  .strictObject({
    scraper_id: uuid.describe('The scraper to run.'),
    url: scheduleUrl,
    cron,
    timezone: timezone.default('UTC'),
    options: scheduleOptions.default({}),
    enabled: z.boolean().default(true).describe('Whether runs start (default true).'),
  })
  .meta({
    examples: [{ scraper_id: exampleId, url: 'https://example.com/products', cron: '0 6 * * *', timezone: 'Europe/Berlin' }],
  });

export const updateScheduleInput = z
  .strictObject({
    id: uuid.describe('The schedule to change.'),
    url: scheduleUrl.optional(),
    cron: cron.optional(),
    timezone: timezone.optional(),
    options: scheduleOptions.optional(),
    enabled: z.boolean().optional().describe('False stops the runs; true starts them again from the next due time.'),
  })
  .meta({ examples: [{ id: exampleId, cron: '30 6 * * 1-5', enabled: true }] });

export const scheduleIdInput = z.object({ id: uuid.describe('The schedule.') });
export const scheduleOutput = z.object({ schedule });
export const listSchedulesOutput = z.object({ schedules: z.array(schedule).describe("The workspace's schedules, oldest first.") });
export const deleteScheduleOutput = z.object({ ok: okFlag, id: uuid });
