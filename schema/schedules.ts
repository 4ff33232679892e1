import { z } from 'zod';
import { exampleId, nullableDateTime, uuid } from './common.ts';
import { scrapeOptions } from './scrape-runs.ts';

const cron = z.string().trim().min(9).max(200).describe('Cron, 5 fields (`0 9 * * 1-5`: 09:00 on weekdays).');
const timezone = z.string().min(1).max(64).describe('IANA time zone, e.g. `Europe/Berlin`.');
const scheduleUrl = z
  .url({ protocol: /^https?$/, hostname: z.regexes.hostname })
  .max(2048)
  .describe('The page each run starts from.');
const scheduleOptions = scrapeOptions.omit({ wait: true }).describe("Each run's options.");

export const schedule = z
  .object({
    id: uuid,
    scraper_id: uuid.describe('The scraper it runs.'),
    url: z.string().describe('The page each run starts from.'),
    cron: z.string().describe('Cron, 5 fields.'),
    timezone: z.string().describe('IANA time zone.'),
    enabled: z.boolean().describe('False: no runs start.'),
    next_run_at: nullableDateTime.describe('The next due time (null while disabled).'),
    last_run_at: nullableDateTime.describe("The last run's due time."),
    last_run_id: uuid.nullable().describe('The last run it started.'),
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
    enabled: z.boolean().default(true).describe('Whether runs start.'),
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
    enabled: z.boolean().optional().describe('False pauses; true resumes from the next due time.'),
  })
  .meta({ examples: [{ id: exampleId, cron: '30 6 * * 1-5', enabled: true }] });

export const scheduleIdInput = z.object({ id: uuid.describe('The schedule.') });
export const scheduleOutput = z.object({ schedule });
export const listSchedulesOutput = z.object({ schedules: z.array(schedule).describe('Oldest first.') });
