import { describe, expect, it } from 'vitest';
import { leadsOfRun, startRun, waitForRun } from '../support/agents.ts';
import { useAgentWorld } from '../support/agent-world/index.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

/**
 * The built-in researcher on a web where each company's site is a path of
 * a shared host (`/sites/<name>/`, `/<name>/`), the directory's lists link
 * to profiles on its own host, list articles sit deep in a media site, and
 * search also answers event pages and job postings naming the same people.
 */
const env: Record<string, string> = {};
const world = useAgentWorld(env, { layout: 'paths' });
const server = useApiServer(env, { worker: true });

describe('the built-in researcher on companies under paths of shared hosts', () => {
  it("finds the CTOs of Berlin fintechs, each from their own company's pages, and nobody from events, press or job boards", async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const started = await startRun(server, apiKey, { goal: 'CTOs of fintech companies in Berlin' });
    const run = await waitForRun(server, apiKey, started.run_id, undefined, 60_000);
    expect(run).toMatchObject({ status: 'completed', error: null });
    expect(run.result_summary).toMatch(/lists of companies/);

    const expected = world.expected({ industry: 'fintech', city: 'Berlin', roles: ['cto'] });
    const leads = await leadsOfRun(server, apiKey, started.run_id);
    for (const lead of leads) {
      const truth = expected.find((person) => person.name === lead.full_name);
      expect(truth, `${lead.full_name} (${lead.title}, ${lead.source_url}) is not a CTO of a Berlin fintech`).toBeDefined();
      // Its own company's path of the shared host, never a neighbour's under the same host.
      expect(lead.source_url.startsWith(world.siteUrl(truth!.company)), lead.source_url).toBe(true);
      expect(lead).toMatchObject({ agent_run_id: started.run_id, company: truth!.company.name });
      if (lead.email) expect(lead).toMatchObject({ email: truth!.email, domain: truth!.company.host });
    }
    expect(leads.length / expected.length).toBeGreaterThanOrEqual(0.8);
    for (const paths of world.hits.values()) expect(paths.filter((p) => p.includes('/private/'))).toEqual([]);
  }, 90_000);

  it('takes a goal stated as a profile the same way', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const profile = await server.request('POST', '/api/leads/research-profiles', {
      key: apiKey,
      body: { name: 'London health CEOs', criteria: { industries: ['healthtech'], locations: ['London'], titles: ['CEOs'] } },
    });
    const started = await startRun(server, apiKey, { goal: 'Find decision makers', profile_id: (profile.body.profile ?? profile.body).id });
    const run = await waitForRun(server, apiKey, started.run_id, undefined, 60_000);
    expect(run.status).toBe('completed');
    const expected = world.expected({ industry: 'healthtech', city: 'London', roles: ['ceo'] });
    const leads = await leadsOfRun(server, apiKey, started.run_id);
    for (const lead of leads)
      expect(
        expected.map((p) => p.name),
        lead.full_name,
      ).toContain(lead.full_name);
    expect(leads.length / expected.length).toBeGreaterThanOrEqual(0.8);
  }, 90_000);
});
