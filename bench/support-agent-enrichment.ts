import { getAgentRun, startAgentRun } from '../src/agents/agents.service.ts';
import { setBalances } from '../src/credits/credits.service.ts';
import { importLeads } from '../src/leads/lead-import.service.ts';
import { listLeads } from '../src/leads/leads.service.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import type { AgentWorld } from '../test/support/agent-world/index.ts';

const ratio = (a: number, b: number) => (a / Math.max(1, b)).toFixed(2);

/**
 * An enrichment run over the people of a world's companies in a few
 * industries and cities, stored with name and company only: half with the
 * page they came from (`source_url`, a company's team page), half with the
 * company's mail domain alone. Reports the share of titles and emails filled
 * of those the sites show, how many filled values are right, locations
 * filled (the company's stated place), and pages per lead enriched; then
 * the same for the people who share a surname with a colleague (or whose
 * surname is a colleague's given name), with the addresses they got that
 * are someone else's.
 */
export async function benchEnrichment(world: AgentWorld, label: string): Promise<void> {
  const companies = world.companies.filter((c) =>
    ['fintech|Berlin', 'healthtech|London', 'logistics|Munich'].includes(`${c.industry}|${c.city}`),
  );
  const people = companies.flatMap((company) => company.people.map((person) => ({ ...person, company })));
  const workspace = await createWorkspace({ name: `enrich ${label}`, plan: 'business', email: 'agent@bench.test' });
  await setBalances(workspace.workspaceId, { agent: 10_000 });
  const principal = { workspaceId: workspace.workspaceId, brandId: workspace.brandId };
  const team = (p: (typeof people)[number]) => `${world.siteUrl(p.company).replace(/\/$/, '')}${p.company.teamPath}`;
  const leads = people.map((p, n) => ({
    full_name: p.name,
    company: p.company.name,
    ...(n % 2 ? { domain: p.company.host } : { source_url: team(p) }),
  }));
  const stored = await importLeads(workspace.workspaceId, { leads });
  const started = performance.now();
  const { run_id } = await startAgentRun(principal, {
    goal: 'Fill in what these leads lack',
    behavior: 'enrichment',
    lead_ids: stored.leads.map((lead) => lead.id),
    options: { max_pages: 200 },
  });
  let run = await getAgentRun(workspace.workspaceId, run_id);
  while (!['completed', 'failed', 'cancelled'].includes(run.status)) {
    await new Promise((r) => setTimeout(r, 50));
    run = await getAgentRun(workspace.workspaceId, run_id);
  }
  const after = new Map((await listLeads(principal, { limit: 500, offset: 0 })).leads.map((lead) => [lead.full_name, lead]));
  const titled = people.filter((p) => after.get(p.name)?.title);
  const mailed = people.filter((p) => after.get(p.name)?.email);
  const right =
    titled.filter((p) => after.get(p.name)!.title === p.title).length + mailed.filter((p) => after.get(p.name)!.email === p.email).length;
  const placed = people.filter((p) => after.get(p.name)?.location);
  const placedRight = placed.filter((p) => after.get(p.name)!.location === p.company.city).length;
  const enriched = people.filter((p) => after.get(p.name)?.title || after.get(p.name)?.email).length;
  const sharing = people.filter((p) => {
    const surnames = p.name
      .split(' ')
      .slice(1)
      .join(' ')
      .split(/[\s-]+/);
    return p.company.people.some((o) => o.name !== p.name && o.name.split(/[\s-]+/).some((word) => surnames.includes(word)));
  });
  const sharingShown = sharing.filter((p) => p.shown !== 'none');
  const sharingTitled = sharing.filter((p) => after.get(p.name)?.title === p.title).length;
  const sharingMailed = sharingShown.filter((p) => after.get(p.name)?.email === p.email).length;
  const others = people.filter((p) => after.get(p.name)?.email && after.get(p.name)!.email !== p.email).length;
  console.log(
    `  enrichment of ${people.length} leads: ${run.status}  titles filled ${ratio(titled.length, people.length)} (${titled.length}/${people.length})` +
      `  emails filled ${ratio(mailed.length, people.filter((p) => p.shown !== 'none').length)} (${mailed.length}/${people.filter((p) => p.shown !== 'none').length} shown)` +
      `  right ${ratio(right, titled.length + mailed.length)}  locations ${ratio(placed.length, people.length)} (right ${ratio(placedRight, placed.length)})  pages ${run.pages_fetched} (${ratio(run.pages_fetched, enriched)} a lead enriched)  ${((performance.now() - started) / 1000).toFixed(1)} s (goal: filled >= 0.8, right >= 0.95)`,
  );
  console.log(
    `  of them sharing a surname with a colleague: ${sharing.length}, right titles ${ratio(sharingTitled, sharing.length)} (${sharingTitled}/${sharing.length})` +
      `  right emails ${ratio(sharingMailed, sharingShown.length)} (${sharingMailed}/${sharingShown.length} shown)  leads given another's address ${others}`,
  );
}
