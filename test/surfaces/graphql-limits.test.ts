import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

/** The defaults: GRAPHQL_MAX_DEPTH 15, GRAPHQL_MAX_TOKENS 10,000. */
const server = useApiServer();

const graphql = (key: string | undefined, query: string) => server.request('POST', '/graphql', { key, body: { query } });

const expectRefused = (res: { status: number; body: any }, limit: RegExp) => {
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0].message).toMatch(limit);
  expect(res.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', field: 'query', status: 400 });
};

describe('GraphQL query limits', () => {
  it('answers 400 naming the depth limit for a query nested 7,000 deep, with a key or without', async () => {
    const deep = `{ ${'leadsList { leads { '.repeat(3_500)}id${' } }'.repeat(3_500)} }`;
    const { apiKey } = await createTestWorkspace();
    expectRefused(await graphql(apiKey, deep), /depth limit of 15\b/);
    expectRefused(await graphql(undefined, deep), /depth limit of 15\b/);
    // Lists nested in an argument alike.
    expectRefused(await graphql(apiKey, `{ leadsList(q: ${'['.repeat(7_000)}"x"${']'.repeat(7_000)}) { total } }`), /depth limit of 15\b/);
  });

  it('counts the depth an operation reaches through its fragments', async () => {
    const { apiKey } = await createTestWorkspace();
    // Each fragment is shallow; together the introspection types nest 17 deep.
    const fragments = Array.from(
      { length: 16 },
      (_, i) => `fragment F${i} on __Type { ${i < 15 ? `ofType { ...F${i + 1} }` : 'name'} }`,
    ).join('\n');
    const res = await graphql(
      apiKey,
      `
        {
          __type(name: "Lead") {
            ...F0
          }
        }
        ${fragments}
      `,
    );
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/depth limit of 15 exceeded/);
    // Within the limit, the same shape is answered.
    const shallow = await graphql(
      apiKey,
      '{ __type(name: "Lead") { ...F0 } } fragment F0 on __Type { ofType { ...F1 } } fragment F1 on __Type { name }',
    );
    expect(shallow.status).toBe(200);
    expect(shallow.body).toEqual({ data: { __type: { ofType: null } } });
  });

  it('answers 400 naming the token limit for a query of more than 10,000 tokens', async () => {
    const { apiKey } = await createTestWorkspace();
    expectRefused(await graphql(apiKey, `{ leadsCapacity { ${'used '.repeat(10_000)} } }`), /token limit of 10000\b/);
    // As many tokens as allowed are answered: `{ leadsCapacity {`, `used limit` and `} }` are 7, each alias 3.
    const aliases = Array.from({ length: 3_331 }, (_, i) => `a${i}: used`).join(' ');
    const atLimit = await graphql(apiKey, `{ leadsCapacity { ${aliases} used limit } }`);
    expect(atLimit.status, JSON.stringify(atLimit.body).slice(0, 500)).toBe(200);
    expect(atLimit.body.errors).toBeUndefined();
    expect(atLimit.body.data.leadsCapacity).toMatchObject({ a0: 0, a3330: 0, used: 0, limit: 5000 });
  });

  it('answers the deepest query the schema has', async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await graphql(apiKey, '{ outreachCampaignsList { campaigns { progress { steps { variants { variant sent } } } } } }');
    expect(res.body.errors?.[0]?.message ?? '').not.toMatch(/limit/);
  });
});
