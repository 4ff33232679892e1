import { startScrapeInput, startScrapeOutput } from '../../schema/scrape-runs.ts';
import { fromOutput } from '../trpc/init.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { startScrape } from './scrape-runs.service.ts';

export const startScrapeProcedure = apiProcedure
  .meta({
    permission: 'scraper',
    successStatus: fromOutput(startScrapeOutput, (output) => ('creditsCost' in output.metadata ? 200 : 202)),
    restResponses: {
      202: { description: 'The run is queued; poll it', body: startScrapeOutput.options[0] },
      200: { description: 'With `options.wait`, the completed result when the run finished in time', body: startScrapeOutput.options[1] },
    },
    errorStyle: 'scraping',
    errors: ['url_not_allowed', 'insufficient_credits'],
    openapi: {
      method: 'POST',
      path: '/api/scrape/{scraperId}',
      tags: ['Scraping'],
      summary: 'Start a scrape run',
      description:
        'Answers 202 at once; poll GET /api/scrape/runs/{runId}. Each page fetched costs crawl credits (http 1, browser 3); failed pages are free.',
    },
  })
  .input(startScrapeInput)
  .output(startScrapeOutput)
  .mutation(async ({ ctx, input }) => {
    const { run, creditsRemaining, completed } = await startScrape(ctx.principal.workspaceId, input);
    const timestamp = run.createdAt.toISOString();
    if (completed) {
      const creditsCost = run.creditsCharged + run.overageCredits;
      return {
        success: true,
        data: completed.data,
        metadata: { scraperId: run.scraperId, runId: run._id, timestamp, tokensUsed: 0, creditsCost, creditsRemaining },
      };
    }
    return {
      success: true,
      data: { runId: run._id, status: run.status, message: 'Scrape queued; poll the run until it is completed.' },
      metadata: { scraperId: run.scraperId, timestamp, creditsRemaining },
    };
  });
