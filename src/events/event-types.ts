import { z } from 'zod';

/**
 * Every domain event the service emits, and its data. Subscribers (jobs/
 * subscribers.ts) react to them; the webhook deliveries of a later release
 * will send them as they are, so each type's data is a public contract.
 */
const scrapeRunEnded = z.object({
  runId: z.uuid().describe('The run.'),
  scraperId: z.uuid().describe('Its scraper.'),
  url: z.string().describe('The page it started from.'),
  pages: z.int().describe('Pages fetched and paid for.'),
  creditsCharged: z.int().describe('Crawl credits taken from the balance.'),
  error: z.string().nullable().describe('Why it failed, or why it stopped early; null when it simply finished.'),
  errorCode: z.string().nullable().describe('Machine-readable form of `error`.'),
});

export const eventData = {
  'scrape.run.completed': scrapeRunEnded,
  'scrape.run.failed': scrapeRunEnded,
} as const;

export type EventType = keyof typeof eventData;
export type EventData<T extends EventType> = z.infer<(typeof eventData)[T]>;
export const eventTypes = Object.keys(eventData) as EventType[];
