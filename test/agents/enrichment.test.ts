import { describe, expect, it } from 'vitest';
import { download, startRun, waitForRun } from '../support/agents.ts';
import { useAgentWorld, type WorldCompany } from '../support/agent-world/index.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';

/**
 * Enrichment runs on stored leads, against the fictional web with its
 * companies under paths of shared hosts: half the leads know the page they
 * came from, half only their company's name and mail domain.
 */
const env: Record<string, string> = {};
const world = useAgentWorld(env, { layout: 'paths' });
const server = useApiServer(env, { worker: true });

const teamPage = (company: WorldCompany) => `${world.siteUrl(company).replace(/\/$/, '')}${company.teamPath}`;

describe('enriching stored leads', () => {
  it("fills the titles and emails their companies' pages show, from those pages only, and keeps what the user set", async () => {
    const { apiKey } = await createTestWorkspace('pro');
    expect(
      (await server.request('POST', '/api/leads/fields', { key: apiKey, body: { label: 'Job title', auto_research: true } })).status,
    ).toBeLessThan(300);
    const people = world.companies
      .filter((c) => c.industry === 'fintech' && c.city === 'Berlin')
      .flatMap((company) => company.people.map((person) => ({ ...person, company })));
    const [userSet, ...rest] = people;
    // One lead came from an event's speaker list: its values must come from its company's own pages all the same.
    const speaker = rest.find((p) => p.company !== userSet!.company && p.name === p.company.people[0]!.name)!;
    const eventPage = `${world.siteOrigin('events.test')}/berlin/fintech-summit`;
    const sourceOf = (p: (typeof rest)[number], n: number) =>
      p === speaker ? { source_url: eventPage } : n % 2 ? { domain: p.company.host } : { source_url: teamPage(p.company) };
    const stored = await importLeads(server, apiKey, [
      { full_name: userSet!.name, company: userSet!.company.name, domain: userSet!.company.host, title: 'Chief Bottle Washer' },
      ...rest.map((p, n) => ({ full_name: p.name, company: p.company.name, ...sourceOf(p, n) })),
    ]);
    const started = await startRun(server, apiKey, {
      goal: 'Fill in what these leads lack',
      behavior: 'enrichment',
      lead_ids: stored.map((lead) => lead.id),
    });
    const run = await waitForRun(server, apiKey, started.run_id, undefined, 60_000);
    expect(run).toMatchObject({ status: 'completed', error: null, leads_saved: 0, tokens_used: 0 });
    expect(run.result_summary).toMatch(/^Enriched \d+ of \d+ leads/);
    expect(run.credits_charged).toBe(run.pages_fetched);

    const leads = new Map<string, Record<string, any>>();
    for (const { id } of stored) leads.set(id, (await server.request('GET', `/api/leads/${id}`, { key: apiKey })).body.lead ?? {});
    const byName = new Map([...leads.values()].map((lead) => [lead.full_name, lead]));
    expect(byName.get(userSet!.name)).toMatchObject({ title: 'Chief Bottle Washer' });

    const titled = rest.filter((p) => byName.get(p.name)!.title);
    const mailed = rest.filter((p) => byName.get(p.name)!.email);
    const showMail = rest.filter((p) => p.shown !== 'none');
    expect(titled.length / rest.length).toBeGreaterThanOrEqual(0.8);
    expect(mailed.length / showMail.length).toBeGreaterThanOrEqual(0.8);
    const right = [
      ...titled.filter((p) => byName.get(p.name)!.title === p.title),
      ...mailed.filter((p) => byName.get(p.name)!.email === p.email),
    ];
    expect(right.length / (titled.length + mailed.length)).toBeGreaterThanOrEqual(0.95);
    for (const p of titled) expect(byName.get(p.name)!.custom.job_title).toBe(byName.get(p.name)!.title);

    // leads.csv: one row per value filled, each with the company's own page it came from.
    const csv = run.artifacts.find((a: { name: string }) => a.name === 'leads.csv');
    expect(csv.preview.columns).toEqual(['lead_id', 'full_name', 'field', 'value', 'source_url']);
    expect(csv.row_count).toBeGreaterThanOrEqual(titled.length + mailed.length);
    const rows = (await (await download(server, csv.download_url)).text())
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(','));
    expect(rows).toHaveLength(csv.row_count);
    for (const [, fullName, , , sourceUrl] of rows) {
      const person = people.find((p) => p.name === fullName)!;
      expect(sourceUrl!.startsWith(world.siteUrl(person.company)), `${fullName}: ${sourceUrl}`).toBe(true);
    }
    expect(byName.get(speaker.name)).toMatchObject({ title: speaker.title });
    // The location its company's site states (home or about page).
    const placed = rest.filter((p) => byName.get(p.name)!.location);
    expect(placed.length / rest.length).toBeGreaterThanOrEqual(0.8);
    for (const p of placed) expect(byName.get(p.name)!.location).toBe(p.company.city);
  }, 90_000);

  it("gives colleagues who share a surname each their own title and email from their team page, and nobody another's address", async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const surnames = (name: string) =>
      name
        .split(' ')
        .slice(1)
        .join(' ')
        .split(/[\s-]+/);
    // Sharing a surname, or a surname that is a colleague's given name ("Jonas Weber", "Maja Jonas").
    const sharing = (company: WorldCompany) =>
      company.people.filter((p) =>
        company.people.some((o) => o !== p && o.name.split(/[\s-]+/).some((word) => surnames(p.name).includes(word))),
      );
    const withFamily = world.companies.filter((c) => sharing(c).length > 0);
    // Every team page shape: the plain entries ("Name, Title. Reach out: address") and one team of each other style.
    const teams = withFamily.filter((c, i) => c.style === 'plain' || withFamily.findIndex((o) => o.style === c.style) === i);
    expect(new Set(teams.map((c) => c.style)).size).toBe(7);
    const people = teams.flatMap((company) => company.people.map((person) => ({ ...person, company })));
    expect(people.filter((p) => sharing(p.company).some((o) => o.name === p.name)).length).toBeGreaterThanOrEqual(20);
    const stored = await importLeads(
      server,
      apiKey,
      people.map((p) => ({ full_name: p.name, company: p.company.name, source_url: teamPage(p.company) })),
    );
    const started = await startRun(server, apiKey, {
      goal: 'Fill in what these leads lack',
      behavior: 'enrichment',
      lead_ids: stored.map((lead) => lead.id),
      options: { max_pages: 200 },
    });
    const run = await waitForRun(server, apiKey, started.run_id, undefined, 60_000);
    expect(run).toMatchObject({ status: 'completed', error: null });
    const leads = (await server.request('GET', '/api/leads?limit=500', { key: apiKey })).body.leads as Array<Record<string, any>>;
    const byName = new Map(leads.map((lead) => [lead.full_name, lead]));
    for (const p of people) {
      const lead = byName.get(p.name)!;
      expect({ name: p.name, title: lead.title, email: lead.email ?? null }).toEqual({
        name: p.name,
        title: p.title,
        email: p.shown === 'none' ? null : p.email,
      });
    }
  }, 90_000);

  it('needs leads: 400 naming lead_ids without them, and lead_ids only with enrichment', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const none = await server.request('POST', '/api/agents/runs', { key: apiKey, body: { goal: 'Fill in', behavior: 'enrichment' } });
    expect(none).toMatchObject({ status: 400, body: { field: 'lead_ids' } });
    const misplaced = await server.request('POST', '/api/agents/runs', {
      key: apiKey,
      body: { goal: 'Find CTOs', lead_ids: ['00000000-0000-4000-8000-000000000000'] },
    });
    expect(misplaced).toMatchObject({ status: 400, body: { field: 'lead_ids' } });
    const foreign = await server.request('POST', '/api/agents/runs', {
      key: apiKey,
      body: { goal: 'Fill in', behavior: 'enrichment', lead_ids: ['00000000-0000-4000-8000-000000000000'] },
    });
    expect(foreign).toMatchObject({ status: 404, body: { field: 'lead_ids' } });
    const nothing = await server.request('POST', '/api/agents/runs', {
      key: apiKey,
      body: { goal: 'Fill in', behavior: 'enrichment', lead_filter: { q: 'nobody' } },
    });
    expect(nothing).toMatchObject({ status: 400, body: { field: 'lead_filter' } });
  });

  it("takes its leads from the lead list's filters", async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const company = world.companies.find((c) => c.people.some((p) => p.shown !== 'none'))!;
    const person = company.people.find((p) => p.shown !== 'none')!;
    await importLeads(server, apiKey, [
      { full_name: person.name, company: company.name, source_url: teamPage(company) },
      { full_name: 'Someone Else', company: 'Elsewhere Ltd' },
    ]);
    const started = await startRun(server, apiKey, { goal: 'Fill in', behavior: 'enrichment', lead_filter: { q: person.name } });
    const run = await waitForRun(server, apiKey, started.run_id, undefined, 60_000);
    expect(run.result_summary).toMatch(/^Enriched 1 of 1 leads/);
    const leads = (await server.request('GET', `/api/leads?q=${encodeURIComponent(person.name)}`, { key: apiKey })).body.leads;
    expect(leads[0]).toMatchObject({ title: person.title, email: person.email });
  });
});
