/**
 * History for bench/scrape: finished runs as a deployment accumulates them
 * (each with its stored result chunk and its completion event), inserted
 * straight into the store the way the service writes them.
 */
import { randomUUID } from 'node:crypto';
import { Event } from '../src/events/event.model.ts';
import { ScrapeResultChunk, ScrapeRun } from '../src/scraping/scrape-run.model.ts';

export async function seedFinishedRuns(workspaceId: string, scraperId: string, count: number, origin: string): Promise<number> {
  const started = performance.now();
  for (let offset = 0; offset < count; offset += 500) {
    const runs = Array.from({ length: Math.min(500, count - offset) }, (_, i) => {
      const _id = randomUUID();
      const at = new Date(Date.now() - (count - offset - i) * 60_000);
      const pages = 1 + ((offset + i) % 20);
      return {
        run: {
          _id,
          workspaceId,
          scraperId,
          url: `${origin}/catalogue?page=${offset + i}`,
          options: {},
          status: 'completed' as const,
          pages,
          pagesCharged: pages,
          creditsCharged: pages,
          overageCredits: 0,
          failures: [],
          error: null,
          errorCode: null,
          resultKey: `${_id}:seed`,
          resultChunks: 1,
          outputSchemaJson: null,
          startedAt: at,
          finishedAt: at,
          createdAt: at,
          updatedAt: at,
        },
        chunk: {
          _id: `${_id}:seed:0`,
          text: JSON.stringify({ items: Array.from({ length: pages * 10 }, (_, n) => ({ title: `Product ${n}`, price: n })) }),
        },
        event: {
          _id: randomUUID(),
          workspaceId,
          type: 'scrape.run.completed',
          data: { runId: _id, scraperId, url: `${origin}/x`, pages, creditsCharged: pages, error: null, errorCode: null },
          createdAt: at,
        },
      };
    });
    await ScrapeRun.insertMany(
      runs.map((r) => r.run),
      { timestamps: false },
    );
    await ScrapeResultChunk.insertMany(runs.map((r) => r.chunk));
    await Event.insertMany(
      runs.map((r) => r.event),
      { timestamps: false },
    );
  }
  return (performance.now() - started) / 1000;
}
