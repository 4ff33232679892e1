/**
 * The built-in researcher (no language model) against a fictional web:
 * BENCH_COMPANIES (default 48) company sites in several industries and
 * cities, each with a team page showing its people in different markup
 * (mailto links, JSON-LD, plain text, obfuscated and HTML-entity addresses,
 * names with no address), a directory site, and a SearXNG-compatible
 * search API over them, all on loopback (test/support/agent-world). For each
 * goal: recall and precision against the people the world holds, email
 * accuracy, pages fetched and time per run.
 *
 *   npm run bench:agent                      # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:agent
 */
import { randomBytes } from 'node:crypto';
import { startWorker } from '../jobs/worker.ts';
import { getAgentRun, startAgentRun } from '../src/agents/agents.service.ts';
import { loadConfig } from '../src/config.ts';
import { setBalances } from '../src/credits/credits.service.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { listLeads } from '../src/leads/leads.service.ts';
import { createWorkspace } from '../src/workspaces/workspace.service.ts';
import { startAgentWorld } from '../test/support/agent-world/index.ts';
import { benchStore } from './support-store.ts';

const goals = [
  { goal: 'CTOs of fintech companies in Berlin', industry: 'fintech', city: 'Berlin', roles: ['cto'] },
  { goal: 'CEOs of healthtech companies in London', industry: 'healthtech', city: 'London', roles: ['ceo'] },
  { goal: 'Founders of logistics startups in Munich', industry: 'logistics', city: 'Munich', roles: ['founder'] },
  { goal: 'Chief Executives of edtech companies in Paris', industry: 'edtech', city: 'Paris', roles: ['ceo'] },
  { goal: 'CTOs and CEOs of cybersecurity companies in Amsterdam', industry: 'cybersecurity', city: 'Amsterdam', roles: ['cto', 'ceo'] },
];

const world = await startAgentWorld({ companies: Number(process.env.BENCH_COMPANIES ?? 48) });
const store = benchStore('agent');
const { uri, stop } = await store.open();
loadConfig({
  MONGODB_URI: uri,
  SECRETS_KEY: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'warn',
  SEARCH_URL: world.searchUrl,
  OUTBOUND_HOST_OVERRIDES: world.hostOverrides,
  OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1',
});
await connectDatabase(uri);
const worker = await startWorker({ concurrency: 2 });

console.log(`${world.companies.length} company sites, ${world.companies.reduce((n, c) => n + c.people.length, 0)} people; store: ${store.name}; no language model`);
const totals = { expected: 0, found: 0, leads: 0, correct: 0, withEmail: 0, emailRight: 0 };
for (const spec of goals) {
  // One workspace per goal, so no lead is a duplicate of another goal's.
  const workspace = await createWorkspace({ name: spec.goal, plan: 'business', email: 'agent@bench.test' });
  await setBalances(workspace.workspaceId, { agent: 10_000 });
  const principal = { workspaceId: workspace.workspaceId, brandId: workspace.brandId };
  const started = performance.now();
  const { run_id } = await startAgentRun(principal, { goal: spec.goal, behavior: 'lead_generation', options: { max_pages: 200, max_leads: 500 } });
  let run = await getAgentRun(workspace.workspaceId, run_id);
  while (!['completed', 'failed', 'cancelled'].includes(run.status)) {
    await new Promise((r) => setTimeout(r, 50));
    run = await getAgentRun(workspace.workspaceId, run_id);
  }
  const seconds = (performance.now() - started) / 1000;
  const { leads } = await listLeads(principal, { agent_run_id: run_id, limit: 500, offset: 0 });
  const expected = world.expected(spec);
  const truth = new Map(expected.map((person) => [person.name, person]));
  const correct = leads.filter((lead) => truth.get(lead.full_name ?? '')?.company.host === lead.domain);
  const withEmail = leads.filter((lead) => lead.email);
  const emailRight = withEmail.filter((lead) => truth.get(lead.full_name ?? '')?.email === lead.email);
  totals.expected += expected.length;
  totals.found += new Set(correct.map((lead) => lead.full_name)).size;
  totals.leads += leads.length;
  totals.correct += correct.length;
  totals.withEmail += withEmail.length;
  totals.emailRight += emailRight.length;
  console.log(
    `${spec.goal.padEnd(54)} ${run.status}  recall ${(new Set(correct.map((l) => l.full_name)).size / Math.max(1, expected.length)).toFixed(2)} (${correct.length}/${expected.length})` +
      `  precision ${(correct.length / Math.max(1, leads.length)).toFixed(2)} (${correct.length}/${leads.length})  email accuracy ${(emailRight.length / Math.max(1, withEmail.length)).toFixed(2)} (${emailRight.length}/${withEmail.length})` +
      `  pages ${run.pages_fetched}  ${seconds.toFixed(1)} s`,
  );
}
console.log(
  `all goals: recall ${(totals.found / totals.expected).toFixed(2)}, precision ${(totals.correct / Math.max(1, totals.leads)).toFixed(2)}, email accuracy ${(totals.emailRight / Math.max(1, totals.withEmail)).toFixed(2)} (goal: recall >= 0.7, precision >= 0.95)`,
);

await worker.stop();
await disconnectDatabase();
await stop();
await world.close();
store.remove();
// Agenda leaves its timers for jobs due later (the hourly prunes, the outreach ticks) after the worker stops.
process.exit(0);
