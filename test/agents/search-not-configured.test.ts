import { describe, expect, it } from 'vitest';
import { leadsOfRun, startRun, waitForRun } from '../support/agents.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';

// Neither SEARCH_URL nor a language model: the built-in researcher has no way to find a company.
const server = useApiServer({}, { worker: true });

describe('an agent run with web search not configured', () => {
  it('fails at once, saying SEARCH_URL is unset, with no page read, nothing planned and nothing charged', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const started = await startRun(server, apiKey, { goal: 'CTOs of fintech companies in Berlin' });
    const run = await waitForRun(server, apiKey, started.run_id);
    expect(run).toMatchObject({
      status: 'failed',
      error: 'search_not_configured',
      tokens_used: 0,
      pages_fetched: 0,
      credits_charged: 0,
      leads_saved: 0,
    });
    expect(run.result_summary).toContain('SEARCH_URL');
    expect(await leadsOfRun(server, apiKey, started.run_id)).toEqual([]);
  });

  it('still runs an enrichment, which needs no search for leads that know their page', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const [lead] = await importLeads(server, apiKey, [{ full_name: 'Ada Lovelace', company: 'Analytical Engines' }]);
    const started = await startRun(server, apiKey, { goal: 'Fill in', behavior: 'enrichment', lead_ids: [lead!.id] });
    const run = await waitForRun(server, apiKey, started.run_id);
    expect(run).toMatchObject({ status: 'completed', error: null });
    expect(run.result_summary).toMatch(/^Enriched 0 of 1 leads/);
  });
});
