import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useBrowser } from '../support/browser.ts';
import { createInbox, outreachEnv } from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

const smtp = useSmtpServer();
// The examples' pages and webhook receiver are at example.com: here, this machine (none of them is fetched before the call answers).
const server = useApiServer({
  ...outreachEnv,
  OUTBOUND_HOST_OVERRIDES: 'example.com=127.0.0.1',
  SCRAPE_ALLOWED_ADDRESSES: '127.0.0.1',
  SCRAPE_HOST_OVERRIDES: 'example.com=127.0.0.1',
  // The email finder's and single check's DNS goes to a closed loopback port (an `unknown` answer), and no worker runs
  // the check here, so it answers 202 at once.
  DNS_SERVERS: '127.0.0.1:9',
  VALIDATION_INLINE_WAIT_MS: '0',
});

type Body = Record<string, unknown>;
type Operation = { requestBody?: { content: { 'application/json'?: { example?: Body } } } };

/** Each documented operation's body example, by `METHOD /path`, as /openapi.json serves it (what Swagger UI's "Try it out" sends). */
let examples: Record<string, Body>;
beforeAll(async () => {
  const { body } = await server.request('GET', '/openapi.json');
  examples = {};
  for (const [path, operations] of Object.entries(body.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      const example = operation.requestBody?.content['application/json']?.example;
      if (example) examples[`${method.toUpperCase()} ${path}`] = example;
    }
  }
});

/** A workspace on the plan that has every feature, and calls made with its owner key (`*`). */
async function world() {
  const { apiKey, workspaceId } = await createTestWorkspace('business');
  const call = async (operation: string, path: string, body: Body) => {
    const res = await server.request(operation.split(' ')[0]!, path, { key: apiKey, body });
    expect(res.status, `${operation}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  /** Makes a resource by sending its create operation's own example (with `extra`). */
  const create = (operation: string, extra: Body = {}) => call(operation, operation.split(' ')[1]!, { ...examples[operation], ...extra });
  const inbox = async () => (await create('POST /api/outreach/inboxes')).inbox.id as string;
  const sequence = async () => (await create('POST /api/outreach/sequences')).sequence.id as string;
  return {
    apiKey,
    workspaceId,
    create,
    inbox,
    sequence,
    lead: async () => (await create('POST /api/leads')).leads[0].id as string,
    scraper: async () => (await create('POST /api/scrapers')).scraper.id as string,
    campaign: async () =>
      (await create('POST /api/outreach/campaigns', { sequence_id: await sequence(), inbox_ids: [await inbox()] })).campaign.id as string,
  };
}
type World = Awaited<ReturnType<typeof world>>;

/**
 * What each operation's example needs that only the test can make: ids for
 * its path (`path`) and for the ids the example must name (`body`, over the
 * example's placeholder). `status` is the answer expected.
 */
const table: Record<string, { status: number; setup?: (w: World) => Promise<{ path?: Record<string, string>; body?: Body }> }> = {
  'POST /api/brands': { status: 201 },
  'POST /api/leads': { status: 201 },
  'PATCH /api/leads': { status: 200, setup: async (w) => ({ body: { ids: [await w.lead()] } }) },
  'DELETE /api/leads': { status: 200, setup: async (w) => ({ body: { ids: [await w.lead()] } }) },
  'PATCH /api/leads/{id}': { status: 200, setup: async (w) => ({ path: { id: await w.lead() } }) },
  'POST /api/leads/fields': { status: 201 },
  'POST /api/leads/research-profiles': { status: 200 },
  // The example's filter selects new leads: one is stored first.
  'POST /api/leads/validate': {
    status: 202,
    setup: async (w) => {
      await w.lead();
      return {};
    },
  },
  'POST /api/outreach/inboxes': { status: 201 },
  'PATCH /api/outreach/inboxes/{id}': { status: 200, setup: async (w) => ({ path: { id: await w.inbox() } }) },
  'POST /api/outreach/sequences': { status: 200 },
  'PATCH /api/outreach/sequences/{id}': { status: 200, setup: async (w) => ({ path: { id: await w.sequence() } }) },
  'POST /api/outreach/campaigns': {
    status: 201,
    setup: async (w) => ({ body: { sequence_id: await w.sequence(), inbox_ids: [await w.inbox()] } }),
  },
  'PATCH /api/outreach/campaigns': { status: 200, setup: async (w) => ({ body: { id: await w.campaign() } }) },
  'POST /api/outreach/campaigns/{id}/enroll': {
    status: 200,
    setup: async (w) => ({ path: { id: await w.campaign() }, body: { lead_ids: [await w.lead()] } }),
  },
  'POST /api/outreach/campaigns/{id}/remove': {
    status: 200,
    setup: async (w) => ({ path: { id: await w.campaign() }, body: { lead_ids: [await w.lead()] } }),
  },
  'POST /api/outreach/campaigns/{id}/move': {
    status: 200,
    setup: async (w) => ({ path: { id: await w.campaign() }, body: { lead_ids: [await w.lead()], to_campaign_id: await w.campaign() } }),
  },
  // A reply comes from a mailbox: one is stored as reading it would, from the test's SMTP inbox's mailbox, and answered for real.
  'POST /api/outreach/replies/{id}/reply': {
    status: 201,
    setup: async (w) => {
      const inbox = await createInbox(server, w.apiKey, smtp);
      const id = randomUUID();
      await mongoose.connection.collection<Record<string, unknown> & { _id: string }>('outreach_replies').insertOne({
        _id: id,
        workspaceId: w.workspaceId,
        brandId: inbox.brand_id,
        inboxId: inbox.id,
        kind: 'reply',
        fromEmail: 'jane.doe@example.com',
        subject: 'Re: Quick question',
        bodyText: 'Sounds good.',
        messageId: '<jane-1@example.com>',
        receivedAt: new Date(),
      });
      return { path: { id } };
    },
  },
  'POST /api/outreach/suppressions': { status: 201 },
  'DELETE /api/outreach/suppressions': { status: 200 },
  // Sent for real, through the test's SMTP server (the example's inbox is not a real server).
  'POST /api/outreach/send': {
    status: 200,
    setup: async (w) => ({ body: { inbox_id: await createInbox(server, w.apiKey, smtp).then((inbox) => inbox.id) } }),
  },
  'POST /api/agents/runs': { status: 202 },
  'POST /api/agents/runs/{id}/reply': {
    status: 200,
    setup: async (w) => ({ path: { id: (await w.create('POST /api/agents/runs')).run_id } }),
  },
  'POST /api/skills': { status: 201 },
  'POST /api/webhooks': { status: 201 },
  'PATCH /api/webhooks/{id}': { status: 200, setup: async (w) => ({ path: { id: (await w.create('POST /api/webhooks')).webhook.id } }) },
  'POST /api/scrapers': { status: 201 },
  'PATCH /api/scrapers/{id}': { status: 200, setup: async (w) => ({ path: { id: await w.scraper() } }) },
  'POST /api/scrape/{scraperId}': { status: 202, setup: async (w) => ({ path: { scraperId: await w.scraper() } }) },
  'POST /api/schedules': { status: 201, setup: async (w) => ({ body: { scraper_id: await w.scraper() } }) },
  'PATCH /api/schedules/{id}': {
    status: 200,
    setup: async (w) => ({ path: { id: (await w.create('POST /api/schedules', { scraper_id: await w.scraper() })).schedule.id } }),
  },
  'POST /api/folders': { status: 201 },
  'PATCH /api/folders/{id}': { status: 200, setup: async (w) => ({ path: { id: (await w.create('POST /api/folders')).folder.id } }) },
  'POST /api/endpoints': { status: 201, setup: async (w) => ({ body: { scraper_id: await w.scraper() } }) },
  'PATCH /api/endpoints/{id}': {
    status: 200,
    setup: async (w) => ({ path: { id: (await w.create('POST /api/endpoints', { scraper_id: await w.scraper() })).endpoint.id } }),
  },
  // An async POST endpoint answers 202 with the run at once, with no page fetched.
  'POST /v1/e/{slug}': {
    status: 202,
    setup: async (w) => ({
      path: {
        slug: (await w.create('POST /api/endpoints', { scraper_id: await w.scraper(), method: 'POST', mode: 'async' })).endpoint.slug,
      },
    }),
  },
  'POST /api/keys': { status: 201 },
  'POST /api/leads/find-email': { status: 200 },
  'POST /api/leads/validate/address': { status: 202 },
  'POST /api/members': { status: 201 },
  'POST /api/privacy/export': { status: 200 },
  'POST /api/privacy/erase': { status: 200 },
};

describe('request examples in /openapi.json', () => {
  it('come with every operation that takes a body, each in the table below', () => {
    expect(Object.keys(examples).sort()).toEqual(Object.keys(table).sort());
  });

  it.each(Object.entries(table))('%s: the API accepts its example', async (operation, { status, setup }) => {
    const w = await world();
    const { path = {}, body = {} } = (await setup?.(w)) ?? {};
    const [method, template] = operation.split(' ') as [string, string];
    const url = template.replace(/\{(\w+)\}/g, (_, name: string) => path[name]!);
    const res = await server.request(method, url, { key: w.apiKey, body: { ...examples[operation], ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
  });
});

describe('the /docs reference', () => {
  const browserHolder = useBrowser();

  it('sends the example with "Try it out" on POST /api/leads, and the lead is stored', async () => {
    const { apiKey } = await createTestWorkspace();
    const page = await (await browserHolder.browser.newContext()).newPage();
    await page.goto(`${server.baseUrl}/docs`);
    await page.locator('button.authorize').first().click();
    await page.locator('.auth-container input').first().fill(apiKey);
    await page.locator('.auth-btn-wrapper button.authorize').first().click();
    await page.locator('.auth-btn-wrapper button.btn-done').first().click();
    const operation = page.locator('.opblock-post', { has: page.locator('[data-path="/api/leads"]') });
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table td.response-col_status:not(.col_header)');
    await status.waitFor({ timeout: 15_000 });
    expect((await status.innerText()).trim()).toBe('201');
    const { body } = await server.request('GET', '/api/leads', { key: apiKey });
    expect(body.leads.map((lead: { email: string }) => lead.email)).toEqual(['jane.doe@example.com']);
  }, 60_000);
});
