/**
 * The built-in researcher (no language model) against a fictional web:
 * BENCH_COMPANIES (default 48) company sites in several industries and
 * cities, each with a team page showing its people in different markup
 * (mailto links, JSON-LD, plain text, obfuscated and HTML-entity addresses,
 * names with no address), a directory, a media site's list articles, an
 * event and a job board, and a SearXNG-compatible search API over them, all
 * on loopback (test/support/agent-world). Each shape of that web is reported
 * apart: a host per company or companies under paths of shared hosts, as the
 * tests see it and in the holdout spelling (another seed, other path shapes,
 * never used in tests). For each goal (as bare text and as a profile):
 * recall and precision against the people the world holds, email accuracy,
 * pages read per lead found, and time; then an enrichment run over stored
 * leads of that world (bench/support-agent-enrichment.ts).
 *
 *   npm run bench:agent                      # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:agent
 */
import { randomBytes } from 'node:crypto';
import { startWorker } from '../src/worker/worker.ts';
import { getAgentRun, startAgentRun } from '../src/agents/agents.service.ts';
import { loadConfig } from '../src/config.ts';
import { setBalances } from '../src/credits/credits.service.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { listLeads } from '../src/leads/leads.service.ts';
import { saveResearchProfile } from '../src/leads/research-profiles.service.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { startAgentWorld, type AgentWorld } from '../test/support/agent-world/index.ts';
import { benchEnrichment } from './support-agent-enrichment.ts';
import { benchStore } from './support-store.ts';

interface Goal {
  goal: string;
  industry: string;
  city: string;
  roles: string[];
  /** Stated as a research profile (the goal text then says nothing). */
  profile?: { titles: string[] };
}
const goals: Goal[] = [
  { goal: 'CTOs of fintech companies in Berlin', industry: 'fintech', city: 'Berlin', roles: ['cto'] },
  { goal: 'CEOs of healthtech companies in London', industry: 'healthtech', city: 'London', roles: ['ceo'] },
  { goal: 'Founders of logistics startups in Munich', industry: 'logistics', city: 'Munich', roles: ['founder'] },
  { goal: 'Chief Executives of edtech companies in Paris', industry: 'edtech', city: 'Paris', roles: ['ceo'] },
  { goal: 'CTOs and CEOs of cybersecurity companies in Amsterdam', industry: 'cybersecurity', city: 'Amsterdam', roles: ['cto', 'ceo'] },
  { goal: 'Find decision makers', industry: 'fintech', city: 'Munich', roles: ['ceo'], profile: { titles: ['CEO'] } },
  {
    goal: 'Find decision makers',
    industry: 'logistics',
    city: 'Berlin',
    roles: ['cto'],
    profile: { titles: ['Chief Technology Officer'] },
  },
];
const count = Number(process.env.BENCH_COMPANIES ?? 48);
const shapes = [
  { name: 'host per company', world: { layout: 'hosts' as const } },
  { name: 'paths of shared hosts', world: { layout: 'paths' as const } },
  { name: 'holdout, host per company', world: { layout: 'hosts' as const, holdout: true, seed: 11 } },
  { name: 'holdout, paths of shared hosts', world: { layout: 'paths' as const, holdout: true, seed: 11 } },
];
const worlds: AgentWorld[] = [];
for (const shape of shapes) worlds.push(await startAgentWorld({ companies: count, ...shape.world }));
// Host names repeat across the worlds (each on its own port): one override list serves them all.
const hostOverrides = [...new Set(worlds.flatMap((world) => world.hostOverrides.split(',')))].join(',');
const store = benchStore('agent');
const { uri, stop } = await store.open();
const configure = (world: AgentWorld) =>
  loadConfig({
    MONGODB_URI: uri,
    SECRETS_KEY,
    LOG_LEVEL: 'warn',
    SEARCH_URL: world.searchUrl,
    OUTBOUND_HOST_OVERRIDES: hostOverrides,
    OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1',
  });
const SECRETS_KEY = randomBytes(32).toString('base64');
configure(worlds[0]!);
await connectDatabase(uri);
const worker = await startWorker({ concurrency: 2 });

const ratio = (a: number, b: number) => (a / Math.max(1, b)).toFixed(2);
console.log(`${count} companies a world; store: ${store.name}; no language model`);
for (const [index, shape] of shapes.entries()) {
  const world = worlds[index]!;
  configure(world);
  const totals = { expected: 0, found: 0, leads: 0, correct: 0, withEmail: 0, emailRight: 0, pages: 0, sourced: 0 };
  console.log(`\n${shape.name}: ${world.companies.reduce((n, c) => n + c.people.length, 0)} people`);
  for (const spec of goals) {
    // One workspace per goal, so no lead is a duplicate of another goal's.
    const workspace = await createWorkspace({ name: spec.goal, plan: 'business', email: 'agent@bench.test' });
    await setBalances(workspace.workspaceId, { agent: 10_000 });
    const principal = { workspaceId: workspace.workspaceId, brandId: workspace.brandId };
    const profile =
      spec.profile &&
      (await saveResearchProfile(workspace.workspaceId, {
        name: spec.goal,
        kind: 'icp',
        criteria: { ...spec.profile, industries: [spec.industry], locations: [spec.city] },
      }));
    const started = performance.now();
    const { run_id } = await startAgentRun(principal, {
      goal: spec.goal,
      behavior: 'lead_generation',
      ...(profile && { profile_id: profile.id }),
      options: { max_pages: 200, max_leads: 500 },
    });
    let run = await getAgentRun(workspace.workspaceId, run_id);
    while (!['completed', 'failed', 'cancelled'].includes(run.status)) {
      await new Promise((r) => setTimeout(r, 50));
      run = await getAgentRun(workspace.workspaceId, run_id);
    }
    const seconds = (performance.now() - started) / 1000;
    const { leads } = await listLeads(principal, { agent_run_id: run_id, limit: 500, offset: 0 });
    const expected = world.expected(spec);
    const truth = new Map(expected.map((person) => [person.name, person]));
    // Right: one of the people wanted, found on their own company's site (its host, or its path of a shared host).
    const correct = leads.filter((lead) => {
      const person = truth.get(lead.full_name ?? '');
      return person && String(lead.source_url).startsWith(world.siteUrl(person.company));
    });
    const withEmail = leads.filter((lead) => lead.email);
    const emailRight = withEmail.filter((lead) => truth.get(lead.full_name ?? '')?.email === lead.email);
    const found = new Set(correct.map((lead) => lead.full_name)).size;
    Object.assign(totals, {
      expected: totals.expected + expected.length,
      found: totals.found + found,
      leads: totals.leads + leads.length,
      correct: totals.correct + correct.length,
      withEmail: totals.withEmail + withEmail.length,
      emailRight: totals.emailRight + emailRight.length,
      pages: totals.pages + run.pages_fetched,
      sourced: totals.sourced + leads.filter((lead) => lead.source_url && lead.agent_run_id === run_id).length,
    });
    const label = spec.profile ? `profile ${spec.profile.titles.join(', ')} / ${spec.industry} / ${spec.city}` : spec.goal;
    console.log(
      `  ${label.padEnd(54)} ${run.status}  recall ${ratio(found, expected.length)} (${found}/${expected.length})` +
        `  precision ${ratio(correct.length, leads.length)} (${correct.length}/${leads.length})  email accuracy ${ratio(emailRight.length, withEmail.length)} (${emailRight.length}/${withEmail.length})` +
        `  pages ${run.pages_fetched} (${ratio(run.pages_fetched, found)} a lead found)  ${seconds.toFixed(1)} s`,
    );
  }
  console.log(
    `  ${shape.name}: recall ${ratio(totals.found, totals.expected)}, precision ${ratio(totals.correct, totals.leads)}, email accuracy ${ratio(totals.emailRight, totals.withEmail)}, ` +
      `pages a lead found ${ratio(totals.pages, totals.found)}, leads with source_url and agent_run_id ${totals.sourced}/${totals.leads} (goal: recall >= 0.8, precision >= 0.95)`,
  );
  await benchEnrichment(world, shape.name);
}

await worker.stop();
await disconnectDatabase();
await stop();
for (const world of worlds) await world.close();
store.remove();
// Agenda leaves its timers for jobs due later (the hourly prunes, the outreach ticks) after the worker stops.
process.exit(0);
