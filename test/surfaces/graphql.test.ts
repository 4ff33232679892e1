import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isInputObjectType,
  isObjectType,
  isUnionType,
  validateSchema,
  type GraphQLType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { createScraper } from '../support/scraping.ts';

// Webhook URLs on loopback are allowed (nothing is delivered: no worker runs here).
const server = useApiServer({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' });

const graphql = async (key: string | undefined, query: string, variables?: Record<string, unknown>) =>
  (await server.request('POST', '/graphql', { key, body: { query, variables } })).body;

describe('GraphQL surface', () => {
  it('runs the same procedures: import as a mutation, list as a query', async () => {
    const { apiKey } = await createTestWorkspace();
    const imported = await graphql(
      apiKey,
      `
        mutation Import($leads: [LeadsImportLeadInput!]!) {
          leadsImport(name: "From GraphQL", leads: $leads) {
            created
            duplicates
            leads {
              id
              email
              custom
              status
            }
          }
        }
      `,
      { leads: [{ email: 'g@x.test', company: 'Graph Co', custom: { tier: 'A' }, status: 'qualified' }] },
    );
    expect(imported.errors).toBeUndefined();
    expect(imported.data.leadsImport).toMatchObject({
      created: 1,
      duplicates: 0,
      leads: [{ email: 'g@x.test', custom: { tier: 'A' }, status: 'qualified' }],
    });

    const listed = await graphql(
      apiKey,
      '{ leadsList(q: "graph", limit: 10) { total workspaceTotal leadLimit leads { company } campaigns { label count } } }',
    );
    expect(listed.data.leadsList).toEqual({
      total: 1,
      workspaceTotal: 1,
      leadLimit: 5000,
      leads: [{ company: 'Graph Co' }],
      campaigns: [{ label: 'From GraphQL', count: 1 }],
    });
  });

  it('answers errors with the same code and message as REST', async () => {
    const { apiKey } = await createTestWorkspace();
    const invalid = await graphql(apiKey, '{ leadsList(limit: 900) { total } }');
    expect(invalid.errors[0].extensions).toMatchObject({ code: 'validation_failed', field: 'limit', status: 400 });
    const anonymous = await graphql(undefined, '{ leadsCapacity { used } }');
    expect(anonymous.errors[0].extensions).toMatchObject({ code: 'unauthorized', status: 401 });
    const badId = await graphql(apiKey, 'mutation { leadsDelete(ids: ["not-a-uuid"]) { deleted } }');
    expect(badId.errors[0].extensions).toMatchObject({ code: 'validation_failed', field: 'ids.0' });
  });

  it('enforces permissions per key', async () => {
    const workspace = await createTestWorkspace();
    const readKey = await workspace.keyWith('read');
    const res = await graphql(readKey, 'mutation { leadsCreateField(label: "Size") { created } }');
    expect(res.errors[0].extensions).toMatchObject({ code: 'missing_permission', permission: 'write' });
  });

  it('derives documented types from the zod schemas', async () => {
    const { data } = await graphql(undefined, '{ __type(name: "Lead") { fields { name description type { kind ofType { name } } } } }');
    const email = data.__type.fields.find((f: { name: string }) => f.name === 'email');
    expect(email.description).toBe('Email address.');
    const status = data.__type.fields.find((f: { name: string }) => f.name === 'status');
    expect(status.type).toEqual({ kind: 'NON_NULL', ofType: { name: 'LeadStatus' } });
  });

  it('clears a lead field with value: null where the input schema is nullable, as REST does', async () => {
    const { apiKey } = await createTestWorkspace();
    const imported = await graphql(apiKey, 'mutation { leadsImport(leads: [{ email: "n@x.test", title: "CTO" }]) { leads { id title } } }');
    expect(imported.errors).toBeUndefined();
    const { id, title } = imported.data.leadsImport.leads[0];
    expect(title).toBe('CTO');

    const cleared = await graphql(
      apiKey,
      'mutation Clear($id: ID!) { leadsUpdate(id: $id, field: "title", value: null) { lead { title } } }',
      { id },
    );
    expect(cleared.errors).toBeUndefined();
    expect(cleared.data.leadsUpdate.lead.title).toBeNull();
    const listed = await server.request('GET', '/api/leads', { key: apiKey });
    expect(listed.body.leads).toMatchObject([{ id, title: null }]);
  });

  it("clears a scraper's follow rules with follow: null, as REST does", async () => {
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    const unfollowed = await graphql(
      apiKey,
      'mutation Unfollow($id: ID!) { scrapersUpdate(id: $id, follow: null) { scraper { follow { next } } } }',
      {
        id: scraperId,
      },
    );
    expect(unfollowed.errors).toBeUndefined();
    expect(unfollowed.data.scrapersUpdate.scraper.follow).toBeNull();
    const fetched = await server.request('GET', `/api/scrapers/${scraperId}`, { key: apiKey });
    expect(fetched.body.scraper.follow).toBeNull();
  });

  it('treats a null as absent where the input schema is optional but not nullable, in arguments, input objects and variables', async () => {
    const { apiKey } = await createTestWorkspace();
    const imported = await graphql(
      apiKey,
      `
        mutation Import($leads: [LeadsImportLeadInput!]!, $name: String) {
          leadsImport(name: $name, leads: $leads) {
            created
            leads {
              email
              company
            }
          }
        }
      `,
      {
        name: null,
        leads: [
          { email: 'a@x.test', company: null, score: null },
          { email: 'b@x.test', company: 'B Co' },
        ],
      },
    );
    expect(imported.errors).toBeUndefined();
    expect(imported.data.leadsImport).toMatchObject({
      created: 2,
      leads: [
        { email: 'a@x.test', company: null },
        { email: 'b@x.test', company: 'B Co' },
      ],
    });

    const listed = await graphql(apiKey, '{ leadsList(q: null, status: null, limit: 5) { total leads { email } } }');
    expect(listed.errors).toBeUndefined();
    expect(listed.data.leadsList.total).toBe(2);

    const scraperId = await createScraper(server, apiKey);
    const renamed = await graphql(
      apiKey,
      'mutation Rename($id: ID!) { scrapersUpdate(id: $id, name: "Renamed", engine: null, extract: null) { scraper { name engine follow { next max_pages } } } }',
      { id: scraperId },
    );
    expect(renamed.errors).toBeUndefined();
    expect(renamed.data.scrapersUpdate.scraper).toEqual({ name: 'Renamed', engine: 'http', follow: { next: 'a.next', max_pages: 10 } });
  });

  it('types identifiers as ID, in fields and arguments', async () => {
    const { data } = await graphql(
      undefined,
      '{ __schema { types { name kind fields { name type { ...Named } args { name type { ...Named } } } inputFields { name type { ...Named } } } } } fragment Named on __Type { name ofType { name ofType { name ofType { name } } } }',
    );
    const named = (type: any): string => type.name ?? named(type.ofType);
    const notIds: string[] = [];
    for (const type of data.__schema.types as any[]) {
      if (type.name.startsWith('__')) continue;
      const places = [
        ...(type.fields ?? []).flatMap((f: any) => [
          { at: `${type.name}.${f.name}`, ...f },
          ...f.args.map((a: any) => ({ at: `${type.name}.${f.name}(${a.name})`, ...a })),
        ]),
        ...(type.inputFields ?? []).map((f: any) => ({ at: `${type.name}.${f.name}`, ...f })),
      ];
      for (const place of places)
        if (/^ids?$|[a-z]Ids?$|_ids?$/.test(place.name) && named(place.type) !== 'ID') notIds.push(`${place.at}: ${named(place.type)}`);
    }
    expect(notIds).toEqual([]);
    const lead = await graphql(undefined, '{ __type(name: "Lead") { fields { name type { kind ofType { name } } } } }');
    expect(lead.data.__type.fields.find((f: { name: string }) => f.name === 'id').type).toEqual({
      kind: 'NON_NULL',
      ofType: { name: 'ID' },
    });
  });

  it('declares each set of enum values once, and every type it declares is used', async () => {
    const { data } = await graphql(undefined, '{ __schema { types { name kind enumValues { name } } } }');
    const enums = (data.__schema.types as Array<{ name: string; kind: string; enumValues: Array<{ name: string }> | null }>).filter(
      (t) => t.kind === 'ENUM' && !t.name.startsWith('__'),
    );
    const sets = enums.map((t) =>
      t
        .enumValues!.map((v) => v.name)
        .sort()
        .join(','),
    );
    expect(sets.length).toBe(new Set(sets).size);
    const byName = Object.fromEntries(enums.map((t) => [t.name, t.enumValues!.map((v) => v.name)]));
    expect(byName.LeadStatus!.sort()).toEqual(['contacted', 'disqualified', 'new', 'qualified']);
    expect(byName.WebhookEventType).toContain('scrape_run_completed');
    // The schema as served holds no type that no field or argument reaches.
    const schema = buildClientSchema((await graphql(undefined, getIntrospectionQuery())).data);
    expect(validateSchema(schema)).toEqual([]);
    const nameOf = (type: GraphQLType) => getNamedType(type).name;
    const reached = new Set<string>();
    const reach = (name: string) => {
      if (reached.has(name)) return;
      reached.add(name);
      const type = schema.getType(name);
      if (isUnionType(type)) type.getTypes().forEach((member) => reach(member.name));
      if (!isObjectType(type) && !isInputObjectType(type)) return;
      for (const field of Object.values(type.getFields())) {
        reach(nameOf(field.type));
        for (const arg of 'args' in field ? field.args : []) reach(nameOf(arg.type));
      }
    };
    reach('Query');
    reach('Mutation');
    const builtIn = ['String', 'Boolean'];
    expect(
      Object.keys(schema.getTypeMap()).filter((name) => !name.startsWith('__') && !reached.has(name) && !builtIn.includes(name)),
    ).toEqual([]);
  });

  it('takes webhook event types as the enum its argument is typed with', async () => {
    const { apiKey } = await createTestWorkspace();
    const created = await graphql(
      apiKey,
      'mutation Hook($events: [WebhookEventType!]!) { webhooksCreate(url: "http://127.0.0.1:9/in", events: $events) { webhook { id events } } }',
      { events: ['scrape_run_completed', 'webhook_test'] },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.webhooksCreate.webhook.events).toEqual(['scrape_run_completed', 'webhook_test']);
    const { id } = created.data.webhooksCreate.webhook;
    const stored = await server.request('GET', `/api/webhooks/${id}`, { key: apiKey });
    expect(stored.body.webhook.events).toEqual(['scrape.run.completed', 'webhook.test']);
    const all = await graphql(apiKey, 'mutation Hook($id: ID!) { webhooksUpdate(id: $id, events: [all]) { webhook { events } } }', { id });
    expect(all.errors).toBeUndefined();
    expect(all.data.webhooksUpdate.webhook.events).toEqual(['all']);
  });

  it('serves GraphiQL without any external asset', async () => {
    const res = await server.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.body).toContain('GraphiQL');
    // It opens with the Authorization header to fill in: without it every query is refused.
    expect(res.body).toMatch(/Authorization.{0,20}Bearer/);
    expect(res.body).not.toMatch(/<script[^>]+src="https?:/);
    expect(res.body).not.toMatch(/<link[^>]+href="https?:/);
  });
});
