import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { updateWorkspace } from '../../src/account/account.service.ts';
import { startRun, waitForRun as waitForAgentRun } from '../support/agents.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useCatalogueAndForbiddenSites } from '../support/fixture-sites.ts';
import { importLeads } from '../support/leads.ts';
import { useMailWorld } from '../support/mail-world.ts';
import { useScriptedModel } from '../support/openai-server.ts';
import { createScraper, scrapeEnv, waitForRun as waitForScrape } from '../support/scraping.ts';
import { startValidation, waitForJob } from '../support/validation.ts';

// A scrape (catalogue site), an agent run (scripted model on 127.0.0.1) and a validation job (mail world) on one server.
const world = useMailWorld(
  { 'acme.test': { ip: '127.0.0.21', mailboxes: { ada: 'accept', grace: 'accept' } } },
  { allowed: ['127.0.0.21', '127.0.0.1'] },
);
const model = useScriptedModel(world.env);
const server = useApiServer(Object.assign(world.env, scrapeEnv), { worker: true });
const sites = useCatalogueAndForbiddenSites();

const zeroDay = { crawl: 0, agent: 0, validation: 0 };

describe('GET /api/usage', () => {
  it("shows what a scrape, an agent run and a validation job each spent, on today in the workspace's time zone", async () => {
    const { apiKey, workspaceId } = await createTestWorkspace('pro');
    // UTC+14: its date is often not UTC's.
    const timezone = 'Pacific/Kiritimati';
    await updateWorkspace(workspaceId, { timezone });

    const scraperId = await createScraper(server, apiKey);
    const started = await server.request('POST', `/api/scrape/${scraperId}`, {
      key: apiKey,
      body: { url: `${sites.site.origin}/catalogue?page=1` },
    });
    const scrape = await waitForScrape(server, apiKey, started.body.data.runId);
    expect(scrape).toMatchObject({ status: 'completed', creditsCharged: 4 });

    model.script({ toolCalls: [{ name: 'finish', arguments: { summary: 'Done.' } }], totalTokens: 1_500 });
    const agent = await waitForAgentRun(server, apiKey, (await startRun(server, apiKey, { goal: 'Anything' })).run_id);
    expect(agent).toMatchObject({ status: 'completed', credits_charged: 2 });

    const leads = await importLeads(server, apiKey, [{ email: 'ada@acme.test' }, { email: 'grace@acme.test' }]);
    const job = await waitForJob(server, apiKey, (await startValidation(server, apiKey, { lead_ids: leads.map((l) => l.id) })).id);
    expect(job).toMatchObject({ status: 'completed', credits_charged: 2 });

    const usage = await server.request('GET', '/api/usage', { key: await dashboardKey(apiKey) });
    expect(usage.status).toBe(200);
    const today = DateTime.now().setZone(timezone);
    expect(usage.body).toEqual({
      plan: 'pro',
      overage: false,
      credits: {
        crawl: { remaining: 10_000 - 4, used30d: 4 },
        agent: { remaining: 2_500 - 2, used30d: 2 },
        validation: { remaining: 10_000 - 2, used30d: 2 },
      },
      leads: { used: 2, limit: 100_000, remaining: 99_998, tier: 'pro' },
      keys: { active: 2, limit: 25 },
      days: Array.from({ length: 30 }, (_, i) => ({
        date: today.minus({ days: 29 - i }).toISODate(),
        ...(i === 29 ? { crawl: 4, agent: 2, validation: 2 } : zeroDay),
      })),
    });

    const graphql = await server.request('POST', '/graphql', {
      key: apiKey,
      body: { query: '{ usageGet { credits { crawl { used30d } } days { date crawl } } }' },
    });
    expect(graphql.body.data.usageGet.credits.crawl.used30d).toBe(4);
    expect(graphql.body.data.usageGet.days.at(-1)).toEqual({ date: today.toISODate(), crawl: 4 });
  }, 60_000);

  it('needs the read permission', async () => {
    const workspace = await createTestWorkspace();
    const refused = await server.request('GET', '/api/usage', { key: await workspace.keyWith('scraper') });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'missing_permission', permission: 'read' });
    const fresh = await server.request('GET', '/api/usage', { key: await workspace.keyWith('read') });
    expect(fresh.status).toBe(200);
    expect(fresh.body.days).toHaveLength(30);
    expect(fresh.body.days.every((day: Record<string, unknown>) => day.crawl === 0 && day.agent === 0 && day.validation === 0)).toBe(true);
    expect(fresh.body.keys).toEqual({ active: 3, limit: 5 });
  });
});

/** A read-only key made over HTTP, as a dashboard would hold one. */
async function dashboardKey(ownerKey: string): Promise<string> {
  const res = await server.request('POST', '/api/keys', { key: ownerKey, body: { name: 'Dashboard', scopes: ['read'] } });
  expect(res.status).toBe(201);
  return res.body.secret;
}
