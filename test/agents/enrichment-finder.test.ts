import { beforeAll, describe, expect, it } from 'vitest';
import { getBalances } from '../../src/credits/credits.service.ts';
import { download, startRun, waitForRun } from '../support/agents.ts';
import { useAgentWorld } from '../support/agent-world/index.ts';
import { generateCompanies } from '../support/agent-world/companies.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';
import { useMailWorld, type Answer } from '../support/mail-world.ts';

/**
 * An enrichment run's leads whose company's pages show no address: the email finder asks their company's mail server
 * (loopback DNS and SMTP, each company's real mailboxes accepted, any other refused).
 */
const plainName = /^[A-Za-z]+ [A-Za-z]+$/;
const companies = generateCompanies()
  .filter((company) => company.people.some((p) => p.shown === 'none' && plainName.test(p.name)))
  .slice(0, 3);
const hidden = companies.flatMap((company) =>
  company.people.filter((p) => p.shown === 'none' && plainName.test(p.name)).map((person) => ({ ...person, company })),
);
const mail = useMailWorld(
  Object.fromEntries(
    companies.map((company, i) => [
      company.host,
      {
        ip: `127.0.0.${51 + i}`,
        mailboxes: Object.fromEntries(company.people.map((p) => [p.email.split('@')[0]!, 'accept' as Answer])),
      },
    ]),
  ),
);
const env: Record<string, string> = {};
const web = useAgentWorld(env, {});
// Both worlds' loopback addresses are exempt from the outbound guard: the sites' and the mail hosts'.
beforeAll(() => {
  Object.assign(env, mail.env, { OUTBOUND_ALLOWED_ADDRESSES: `127.0.0.1,${mail.env.OUTBOUND_ALLOWED_ADDRESSES}` });
  Object.assign(env, { SEARCH_URL: web.searchUrl, OUTBOUND_HOST_OVERRIDES: web.hostOverrides });
});
const server = useApiServer(env, { worker: true });

describe('an enrichment run and the email finder', () => {
  it("finds the addresses its leads' company pages do not show, writing each to its lead with its status", async () => {
    expect(hidden.length).toBeGreaterThanOrEqual(3);
    const { apiKey, workspaceId } = await createTestWorkspace('pro');
    const stored = await importLeads(
      server,
      apiKey,
      hidden.map((p) => ({ full_name: p.name, company: p.company.name, domain: p.company.host })),
    );
    const credits = (await getBalances(workspaceId)).validation;
    const started = await startRun(server, apiKey, {
      goal: 'Fill in what these leads lack',
      behavior: 'enrichment',
      lead_ids: stored.map((l) => l.id),
    });
    const run = await waitForRun(server, apiKey, started.run_id, undefined, 60_000);
    expect(run).toMatchObject({ status: 'completed', error: null });

    for (const [i, person] of hidden.entries()) {
      const lead = (await server.request('GET', `/api/leads/${stored[i]!.id}`, { key: apiKey })).body.lead;
      expect(lead, person.name).toMatchObject({ email: person.email, email_status: 'valid' });
    }
    expect((await getBalances(workspaceId)).validation).toBe(credits - hidden.length);
    expect(mail.dataCommands()).toBe(0);

    const csv = run.artifacts.find((a: { name: string }) => a.name === 'leads.csv');
    const rows = (await (await download(server, csv.download_url)).text()).trim().split('\n').slice(1);
    for (const person of hidden) expect(rows).toContainEqual(expect.stringContaining(`,email,${person.email},email-finder:valid`));
  }, 90_000);
});
