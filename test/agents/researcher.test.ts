import { describe, expect, it } from 'vitest';
import { getBalances } from '../../src/credits/credits.service.ts';
import { leadsOfRun, startRun, waitForRun } from '../support/agents.ts';
import { useAgentWorld } from '../support/agent-world/index.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { storeFillerLeads } from '../support/leads.ts';

/**
 * Agent runs with no language model configured: the built-in researcher
 * against a fictional web on loopback (company sites whose team pages show
 * people in different markup, a directory, and a search API over them).
 */
const env: Record<string, string> = {};
const world = useAgentWorld(env);
const server = useApiServer(env, { worker: true });

describe('the built-in researcher (no language model)', () => {
  it('finds the CTOs of fintech companies in Berlin and saves them with their sources, and nobody else', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace('pro');
    const before = (await getBalances(workspaceId)).agent;
    const started = await startRun(server, apiKey, { goal: 'CTOs of fintech companies in Berlin' });
    const run = await waitForRun(server, apiKey, started.run_id, undefined, 60_000);
    expect(run).toMatchObject({ status: 'completed', tokens_used: 0, error: null });
    expect(run.result_summary).toMatch(/^No language model is configured/);

    const expected = world.expected({ industry: 'fintech', city: 'Berlin', roles: ['cto'] });
    const leads = await leadsOfRun(server, apiKey, started.run_id);
    const byName = new Map(expected.map((person) => [person.name, person]));
    // Precision: every lead is one of them, at its own company's site, with its true address when it has one.
    for (const lead of leads) {
      const truth = byName.get(lead.full_name);
      expect(truth, `${lead.full_name} (${lead.title}) is not a CTO of a Berlin fintech`).toBeDefined();
      expect(new URL(lead.source_url).hostname).toBe(truth!.company.host);
      expect(lead).toMatchObject({ agent_run_id: started.run_id, domain: truth!.company.host, company: truth!.company.name });
      if (lead.email) expect(lead.email).toBe(truth!.email);
    }
    expect(leads.length / expected.length).toBeGreaterThanOrEqual(0.7);
    // Addresses shown in any form (mailto, JSON-LD, text, obfuscated) are found.
    const shown = expected.filter((p) => p.shown !== 'none' && leads.some((l) => l.full_name === p.name));
    for (const person of shown) expect(leads.find((l) => l.full_name === person.name)!.email, person.shown).toBe(person.email);

    expect(run.leads_saved).toBe(leads.length);
    expect(run.pages_fetched).toBeGreaterThan(0);
    expect(run.credits_charged).toBe(run.pages_fetched);
    expect((await getBalances(workspaceId)).agent).toBe(before - run.pages_fetched);
    // robots.txt kept it out of every private area.
    for (const paths of world.hits.values()) expect(paths.filter((p) => p.startsWith('/private/'))).toEqual([]);
    const csv = run.artifacts.find((a: { name: string }) => a.name === 'leads.csv');
    expect(csv.row_count).toBe(leads.length);
  }, 90_000);

  it('follows a saved profile: its titles, locations, industries and required email', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const profile = await server.request('POST', '/api/leads/research-profiles', {
      key: apiKey,
      body: {
        name: 'London health CEOs',
        criteria: { industries: ['healthtech'], locations: ['London'], titles: ['CEO'], required_fields: ['email'] },
      },
    });
    expect(profile.status).toBeLessThan(300);
    const profileId = (profile.body.profile ?? profile.body).id;
    const started = await startRun(server, apiKey, { goal: 'Find decision makers', profile_id: profileId });
    const run = await waitForRun(server, apiKey, started.run_id, undefined, 60_000);
    expect(run.status).toBe('completed');

    const expected = world.expected({ industry: 'healthtech', city: 'London', roles: ['ceo'] });
    const leads = await leadsOfRun(server, apiKey, started.run_id);
    expect(leads.length).toBeGreaterThan(0);
    for (const lead of leads) {
      const truth = expected.find((p) => p.name === lead.full_name);
      expect(truth, lead.full_name).toBeDefined();
      expect(lead.email).toBe(truth!.email);
    }
    const profiles = await server.request('GET', '/api/leads/research-profiles', { key: apiKey });
    const stored = (profiles.body.profiles ?? profiles.body).find((p: { id: string }) => p.id === profileId);
    expect(stored).toMatchObject({ run_count: 1 });
    expect(stored.last_run_at).not.toBeNull();
  }, 90_000);

  it('carries the conversation into a follow-up: "now in Munich" keeps the titles and industry', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const first = await startRun(server, apiKey, { goal: 'CTOs of fintech companies in Berlin', options: { max_pages: 30 } });
    await waitForRun(server, apiKey, first.run_id, undefined, 60_000);
    const followUp = await server.request('POST', `/api/agents/runs/${first.run_id}/reply`, {
      key: apiKey,
      body: { message: 'Now the same in Munich' },
    });
    expect(followUp.status).toBe(200);
    const run = await waitForRun(server, apiKey, followUp.body.run_id, undefined, 60_000);
    expect(run.status).toBe('completed');
    const munich = new Set(world.expected({ industry: 'fintech', city: 'Munich', roles: ['cto'] }).map((p) => p.name));
    const leads = await leadsOfRun(server, apiKey, followUp.body.run_id);
    expect(leads.length).toBeGreaterThan(0);
    for (const lead of leads) expect(munich.has(lead.full_name), lead.full_name).toBe(true);
  }, 120_000);

  it('fills auto-research columns the pages answer, and leaves others alone', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    for (const body of [
      { label: 'Industry', auto_research: true },
      { label: 'HQ city', description: 'Where the company is headquartered', auto_research: true },
      { label: 'Budget', auto_research: true },
      { label: 'Company website', auto_research: false },
    ])
      expect((await server.request('POST', '/api/leads/fields', { key: apiKey, body })).status).toBeLessThan(300);
    const started = await startRun(server, apiKey, { goal: 'CTOs of fintech companies in Berlin', options: { max_leads: 2 } });
    const run = await waitForRun(server, apiKey, started.run_id, undefined, 60_000);
    expect(run).toMatchObject({ status: 'completed', leads_saved: 2 });
    expect(run.result_summary).toContain('max_leads (2)');
    for (const lead of await leadsOfRun(server, apiKey, started.run_id))
      expect(lead.custom).toEqual({ industry: 'fintech', hq_city: 'Berlin' });
  }, 90_000);

  it("stops at the plan's lead limit, saying so, with the leads that fit stored", async () => {
    const { apiKey, workspaceId } = await createTestWorkspace('free');
    // The free plan's 5,000 leads, all but one taken.
    await storeFillerLeads(workspaceId, 4_999);
    const started = await startRun(server, apiKey, { goal: 'CTOs of fintech companies in Berlin' });
    const run = await waitForRun(server, apiKey, started.run_id, undefined, 60_000);
    expect(run).toMatchObject({ status: 'completed', error: 'lead_limit', leads_saved: 1 });
    expect(run.result_summary).toContain('lead limit');
    expect(await leadsOfRun(server, apiKey, started.run_id)).toHaveLength(1);
  }, 90_000);
});
