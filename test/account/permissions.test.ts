import { beforeAll, describe, expect, it } from 'vitest';
import type { Permission } from '../../schema/account.ts';
import { appRouter } from '../../src/http/router.ts';
import { procedureDefs } from '../../src/trpc/procedure-defs.ts';
import { createTestWorkspace, useApiServer, type TestWorkspace } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';
import { catalogueScraper, createScraper, scrapeEnv } from '../support/scraping.ts';

// No wait for a single address check: with no worker here it answers 202 at once; the email finder's DNS goes to a
// closed loopback port.
const server = useApiServer({ ...scrapeEnv, VALIDATION_INLINE_WAIT_MS: '0', DNS_SERVERS: '127.0.0.1:9' });
const procedures = Object.entries(procedureDefs(appRouter));

/** Records the examples act on, made with the owner's key. */
interface Fixtures {
  leadId: string;
  /** A lead no example deletes (`leads.delete` removes leadId). */
  keptLeadId: string;
  scraperId: string;
  spareScraperId: string;
  runId: string;
  /** A queued run only `scrapers.cancel` acts on. */
  spareRunId: string;
  endpointId: string;
  spareEndpointId: string;
  endpointRunId: string;
  sequenceId: string;
  /** A sequence only `outreach.sequences.delete` acts on. */
  spareSequenceId: string;
  inboxId: string;
  /** An inbox only `outreach.inboxes.delete` acts on. */
  spareInboxId: string;
  campaignId: string;
  validationJobId: string;
  /** A validation job only `validation.cancel` acts on. */
  spareValidationJobId: string;
  agentRunId: string;
  /** An agent run only `agents.cancel` acts on. */
  spareAgentRunId: string;
  spareSkillId: string;
  webhookId: string;
  /** A webhook endpoint only `webhooks.delete` acts on. */
  spareWebhookId: string;
  /** An API key only `keys.revoke` acts on. */
  spareKeyId: string;
  folderId: string;
  /** A folder only `folders.delete` acts on. */
  spareFolderId: string;
  /** A member only `members.remove` acts on. */
  spareMemberId: string;
  scheduleId: string;
  /** A schedule only `schedules.delete` acts on. */
  spareScheduleId: string;
}

/** One valid request per procedure, and the exact status a key holding just the procedure's permission gets. */
type Example = (f: Fixtures) => { params?: Record<string, string>; query?: string; body?: unknown; status: number };

const site = 'http://127.0.0.1:9/catalogue';
const sequenceBody = { name: 'Perm', steps: [{ subject: 'Hello', body_html: '<p>Hi {{first_name|there}}</p>' }] };
/** An inbox stored without logging in (verify: false): permissions are checked before any connection, and a send from it finds no server (503). */
const inboxBody = { name: 'Perm', from: 'perm@x.test', smtp: { host: '127.0.0.1', port: 9, user: 'u', password: 'p' }, verify: false };
const unknownId = '00000000-0000-4000-8000-000000000000';
const scheduleBody = { url: site, cron: '0 9 * * 1', timezone: 'Europe/Berlin' };
const examples: Record<string, Example> = {
  'account.currentUser': () => ({ status: 200 }),
  'brands.create': () => ({ body: { name: 'Second brand' }, status: 201 }),
  'brands.list': () => ({ status: 200 }),
  'leads.list': () => ({ query: 'limit=5', status: 200 }),
  'leads.import': () => ({ body: { leads: [{ email: 'perm@x.test' }] }, status: 201 }),
  'leads.get': (f) => ({ params: { id: f.keptLeadId }, status: 200 }),
  'leads.update': (f) => ({ params: { id: f.leadId }, body: { status: 'qualified' }, status: 200 }),
  'leads.bulkUpdate': (f) => ({ body: { ids: [f.leadId], status: 'contacted' }, status: 200 }),
  'leads.delete': (f) => ({ body: { ids: [f.leadId] }, status: 200 }),
  'leads.capacity': () => ({ status: 200 }),
  'leads.fields': () => ({ status: 200 }),
  'leads.createField': () => ({ body: { label: 'Size' }, status: 201 }),
  'leads.researchProfiles': () => ({ status: 200 }),
  'leads.saveResearchProfile': () => ({ body: { name: 'ICP', criteria: {} }, status: 200 }),
  'validation.start': (f) => ({ body: { lead_ids: [f.keptLeadId] }, status: 202 }),
  'validation.jobs': () => ({ status: 200 }),
  'validation.job': (f) => ({ params: { id: f.validationJobId }, status: 200 }),
  'validation.results': (f) => ({ params: { id: f.validationJobId }, status: 200 }),
  'validation.cancel': (f) => ({ params: { id: f.spareValidationJobId }, status: 200 }),
  'validation.findEmail': () => ({ body: { full_name: 'Perm Person', domain: 'perm.invalid' }, status: 200 }),
  'validation.checkAddress': () => ({ body: { email: 'perm@x.test' }, status: 202 }),
  'agents.start': () => ({ body: { goal: 'CTOs of fintech companies in Berlin' }, status: 202 }),
  'agents.runs': () => ({ status: 200 }),
  'agents.run': (f) => ({ params: { id: f.agentRunId }, status: 200 }),
  // The run stays queued (no worker here): still working, so a reply without interrupt is 409.
  'agents.reply': (f) => ({ params: { id: f.agentRunId }, body: { message: 'Munich too' }, status: 409 }),
  'agents.cancel': (f) => ({ params: { id: f.spareAgentRunId }, status: 200 }),
  'skills.create': () => ({ body: { title: 'Focus', emoji: '🎯', system_prompt: 'Prefer small companies.' }, status: 201 }),
  'skills.list': () => ({ status: 200 }),
  'skills.delete': (f) => ({ params: { id: f.spareSkillId }, status: 200 }),
  'webhooks.create': () => ({ body: { url: 'http://127.0.0.1:9/hooks', events: ['*'] }, status: 201 }),
  'webhooks.list': () => ({ status: 200 }),
  'webhooks.get': (f) => ({ params: { id: f.webhookId }, status: 200 }),
  'webhooks.update': (f) => ({ params: { id: f.webhookId }, body: { description: 'changed' }, status: 200 }),
  'webhooks.delete': (f) => ({ params: { id: f.spareWebhookId }, status: 200 }),
  'webhooks.test': (f) => ({ params: { id: f.webhookId }, status: 202 }),
  'webhooks.deliveries': (f) => ({ params: { id: f.webhookId }, status: 200 }),
  // No worker here, so no delivery exists: the permission is checked before the lookup.
  'webhooks.retryDelivery': (f) => ({ params: { id: f.webhookId, deliveryId: '00000000-0000-4000-8000-000000000000' }, status: 404 }),
  'scrapers.create': () => ({ body: catalogueScraper, status: 201 }),
  'scrapers.list': () => ({ status: 200 }),
  'scrapers.get': (f) => ({ params: { id: f.scraperId }, status: 200 }),
  'scrapers.update': (f) => ({ params: { id: f.scraperId }, body: { name: 'Renamed' }, status: 200 }),
  'scrapers.delete': (f) => ({ params: { id: f.spareScraperId }, status: 200 }),
  'scrapers.runs': (f) => ({ params: { id: f.scraperId }, status: 200 }),
  'folders.create': () => ({ body: { name: 'Perm folder' }, status: 201 }),
  'folders.list': () => ({ status: 200 }),
  'folders.update': (f) => ({ params: { id: f.folderId }, body: { name: 'Renamed folder' }, status: 200 }),
  'folders.delete': (f) => ({ params: { id: f.spareFolderId }, status: 200 }),
  'scrapers.start': (f) => ({ params: { scraperId: f.scraperId }, body: { url: site }, status: 202 }),
  'scrapers.run': (f) => ({ params: { runId: f.runId }, status: 200 }),
  'scrapers.data': (f) => ({ params: { scraperId: f.scraperId, runId: f.runId }, status: 202 }),
  'endpoints.create': (f) => ({ body: { slug: 'perm-create', name: 'P', scraper_id: f.scraperId, url_template: site }, status: 201 }),
  'endpoints.list': () => ({ status: 200 }),
  'endpoints.get': (f) => ({ params: { id: f.endpointId }, status: 200 }),
  'endpoints.update': (f) => ({ params: { id: f.endpointId }, body: { name: 'Renamed' }, status: 200 }),
  'endpoints.delete': (f) => ({ params: { id: f.spareEndpointId }, status: 200 }),
  'endpoints.invoke': () => ({ params: { slug: 'perm-async' }, status: 202 }),
  'endpoints.invokePost': () => ({ params: { slug: 'perm-post' }, body: {}, status: 202 }),
  'endpoints.result': (f) => ({ params: { slug: 'perm-async', runId: f.endpointRunId }, status: 202 }),
  'outreach.sequences.create': () => ({ body: sequenceBody, status: 200 }),
  'outreach.sequences.list': () => ({ status: 200 }),
  'outreach.sequences.update': (f) => ({ params: { id: f.sequenceId }, body: { name: 'Renamed' }, status: 200 }),
  'outreach.sequences.delete': (f) => ({ params: { id: f.spareSequenceId }, status: 200 }),
  'outreach.suppressions.list': () => ({ query: 'limit=5', status: 200 }),
  'outreach.suppressions.add': () => ({ body: { entries: ['perm@x.test', '@perm.test'] }, status: 201 }),
  'outreach.suppressions.remove': () => ({ body: { emails: ['perm@x.test'] }, status: 200 }),
  'outreach.inboxes.create': () => ({ body: inboxBody, status: 201 }),
  'outreach.inboxes.list': () => ({ status: 200 }),
  'outreach.inboxes.update': (f) => ({ params: { id: f.inboxId }, body: { name: 'Renamed' }, status: 200 }),
  'outreach.inboxes.delete': (f) => ({ params: { id: f.spareInboxId }, status: 200 }),
  'outreach.campaigns.create': (f) => ({ body: { name: 'Perm', sequence_id: f.sequenceId, inbox_ids: [f.inboxId] }, status: 201 }),
  'outreach.campaigns.list': () => ({ status: 200 }),
  'outreach.campaigns.get': (f) => ({ params: { id: f.campaignId }, status: 200 }),
  'outreach.campaigns.update': (f) => ({ body: { id: f.campaignId, name: 'Renamed' }, status: 200 }),
  'outreach.campaigns.enroll': (f) => ({ params: { id: f.campaignId }, body: { lead_ids: [f.keptLeadId] }, status: 200 }),
  'outreach.stats.get': () => ({ query: 'brand=all', status: 200 }),
  'outreach.replies.list': () => ({ query: 'kind=reply', status: 200 }),
  'keys.create': () => ({ body: { name: 'Perm', scopes: ['read'] }, status: 201 }),
  'keys.list': () => ({ status: 200 }),
  'keys.revoke': (f) => ({ params: { id: f.spareKeyId }, status: 200 }),
  'members.list': () => ({ status: 200 }),
  'privacy.export': () => ({ body: { email: 'perm@x.test' }, status: 200 }),
  'privacy.erase': () => ({ body: { email: 'erased@x.test' }, status: 200 }),
  'privacy.requests': () => ({ status: 200 }),
  'members.add': () => ({ body: { email: 'perm-member@x.test', role: 'member' }, status: 201 }),
  'members.remove': (f) => ({ params: { id: f.spareMemberId }, status: 200 }),
  'usage.get': () => ({ status: 200 }),
  'leads.activity': (f) => ({ params: { id: f.keptLeadId }, status: 200 }),
  'outreach.stats.campaign': (f) => ({ params: { id: f.campaignId }, status: 200 }),
  'outreach.sending.remove': (f) => ({ params: { id: f.campaignId }, body: { lead_ids: [f.keptLeadId] }, status: 200 }),
  // Past the permission: a target campaign the workspace does not have (404 naming it).
  'outreach.sending.move': (f) => ({
    params: { id: f.campaignId },
    body: { lead_ids: [f.keptLeadId], to_campaign_id: unknownId },
    status: 404,
  }),
  // Past the permission: no reply is stored here (404).
  'outreach.replies.get': () => ({ params: { id: unknownId }, status: 404 }),
  'outreach.replies.answer': () => ({ params: { id: unknownId }, body: { body_html: '<p>Thanks</p>' }, status: 404 }),
  'scrapers.cancel': (f) => ({ params: { runId: f.spareRunId }, status: 200 }),
  'schedules.create': (f) => ({ body: { ...scheduleBody, scraper_id: f.scraperId }, status: 201 }),
  'schedules.list': () => ({ status: 200 }),
  'schedules.get': (f) => ({ params: { id: f.scheduleId }, status: 200 }),
  'schedules.update': (f) => ({ params: { id: f.scheduleId }, body: { enabled: false }, status: 200 }),
  'schedules.delete': (f) => ({ params: { id: f.spareScheduleId }, status: 200 }),
  'outreach.sending.send': (f) => ({
    body: { inbox_id: f.inboxId, to: 'send@x.test', subject: 'Hi', body_html: '<p>Hi</p>' },
    status: 503,
  }),
};

describe('permissions, for every procedure of the router', () => {
  let workspace: TestWorkspace;
  let fixtures: Fixtures;
  const keys: Partial<Record<Permission, string>> = {};

  beforeAll(async () => {
    workspace = await createTestWorkspace('pro'); // sending needs a paid plan; pro's limit of active keys leaves room for one per permission and keys.create
    for (const scope of ['read', 'write', 'scraper', 'agents', 'endpoints:invoke', 'outreach:send', 'leads:validate'] as const)
      keys[scope] = await workspace.keyWith(scope);
    keys['*'] = await workspace.keyWith('*');
    const owner = workspace.apiKey;
    const [lead, keptLead] = await importLeads(server, owner, [{ email: 'fixture@x.test' }, { email: 'kept@x.test' }]);
    const scraperId = await createScraper(server, owner);
    const spareScraperId = await createScraper(server, owner);
    const run = await server.request('POST', `/api/scrape/${scraperId}`, { key: owner, body: { url: site } });
    const spareRun = await server.request('POST', `/api/scrape/${scraperId}`, { key: owner, body: { url: site } });
    const schedule = async () =>
      (await server.request('POST', '/api/schedules', { key: owner, body: { ...scheduleBody, scraper_id: scraperId } })).body.schedule
        .id as string;
    const endpoint = async (slug: string, extra: Record<string, unknown> = {}) => {
      const res = await server.request('POST', '/api/endpoints', {
        key: owner,
        body: { slug, name: slug, scraper_id: scraperId, url_template: site, mode: 'async', ...extra },
      });
      return res.body.endpoint.id as string;
    };
    const endpointId = await endpoint('perm-async');
    await endpoint('perm-post', { method: 'POST' });
    const spareEndpointId = await endpoint('perm-spare');
    const invoked = await server.request('GET', '/v1/e/perm-async', { key: owner });
    const sequence = async () =>
      (await server.request('POST', '/api/outreach/sequences', { key: owner, body: sequenceBody })).body.sequence.id as string;
    // No worker runs here: the jobs stay queued (so one can be cancelled).
    const validationJob = async () =>
      (await server.request('POST', '/api/leads/validate', { key: owner, body: { lead_ids: [keptLead!.id] } })).body.job.id as string;
    const agentRun = async () =>
      (await server.request('POST', '/api/agents/runs', { key: owner, body: { goal: 'Fixture run' } })).body.run_id as string;
    const skill = await server.request('POST', '/api/skills', { key: owner, body: { title: 'Spare', emoji: '🧪', system_prompt: 'x' } });
    const webhook = async () =>
      (await server.request('POST', '/api/webhooks', { key: owner, body: { url: 'http://127.0.0.1:9/hooks', events: ['*'] } })).body.webhook
        .id as string;
    const folder = async (name: string) =>
      (await server.request('POST', '/api/folders', { key: owner, body: { name } })).body.folder.id as string;
    const inbox = async () =>
      (await server.request('POST', '/api/outreach/inboxes', { key: owner, body: inboxBody })).body.inbox.id as string;
    fixtures = {
      leadId: lead!.id,
      keptLeadId: keptLead!.id,
      scraperId,
      spareScraperId,
      runId: run.body.data.runId,
      spareRunId: spareRun.body.data.runId,
      endpointId,
      spareEndpointId,
      endpointRunId: invoked.body.runId,
      sequenceId: await sequence(),
      spareSequenceId: await sequence(),
      inboxId: await inbox(),
      spareInboxId: await inbox(),
      campaignId: '',
      validationJobId: await validationJob(),
      spareValidationJobId: await validationJob(),
      agentRunId: await agentRun(),
      spareAgentRunId: await agentRun(),
      spareSkillId: skill.body.skill.id,
      webhookId: await webhook(),
      spareWebhookId: await webhook(),
      spareKeyId: (await server.request('POST', '/api/keys', { key: owner, body: { name: 'Spare', scopes: ['read'] } })).body.key.id,
      folderId: await folder('Fixture folder'),
      spareFolderId: await folder('Spare folder'),
      spareMemberId: (await server.request('POST', '/api/members', { key: owner, body: { email: 'spare@x.test', role: 'member' } })).body
        .member.id,
      scheduleId: await schedule(),
      spareScheduleId: await schedule(),
    };
    const campaign = await server.request('POST', '/api/outreach/campaigns', {
      key: owner,
      body: { name: 'Fixture', sequence_id: fixtures.sequenceId, inbox_ids: [fixtures.inboxId] },
    });
    fixtures.campaignId = campaign.body.campaign.id;
  });

  it('has an example for every procedure, and every procedure declares its permission', () => {
    expect(procedures.map(([path]) => path).sort()).toEqual(Object.keys(examples).sort());
    for (const [path, procedure] of procedures) expect(procedure.meta?.permission, path).toBeDefined();
  });

  it.each(procedures.map(([path, procedure]) => ({ path, permission: procedure.meta!.permission, openapi: procedure.meta!.openapi! })))(
    '$path needs $permission',
    async ({ path, permission, openapi }) => {
      const example = examples[path]!(fixtures);
      const url =
        openapi.path.replace(/\{(\w+)\}/g, (_, name: string) => example.params![name]!) + (example.query ? `?${example.query}` : '');
      const send = (key?: string) => server.request(openapi.method, url, { key, body: example.body });

      expect((await send()).status).toBe(401);
      if (permission !== 'any') {
        const denied = await send(permission === 'read' ? keys.write : keys.read);
        expect(denied.status).toBe(403);
        expect(denied.body).toMatchObject({ error: expect.stringContaining(permission), code: 'missing_permission', permission });
      }
      const holder = permission === 'any' ? keys.agents! : keys[permission]!;
      const allowed = await send(holder);
      expect(allowed.status, JSON.stringify(allowed.body)).toBe(example.status);
    },
  );
});
