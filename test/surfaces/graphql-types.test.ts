import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isObjectType,
  isUnionType,
  type GraphQLNamedType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { dateTimeScalar } from '../../src/http/surfaces/graphql/date-time.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

/** The GraphQL schema as client generators read it: real scalars, enums and one type per shape. */
const server = useApiServer();
const graphql = async (key: string | undefined, query: string, variables?: Record<string, unknown>) =>
  (await server.request('POST', '/graphql', { key, body: { query, variables } })).body;
const servedSchema = async () => buildClientSchema((await graphql(undefined, getIntrospectionQuery())).data);
const ownTypes = (types: GraphQLNamedType[]) => types.filter((type) => !type.name.startsWith('__'));

describe('GraphQL types', () => {
  it('types every date-time as the DateTime scalar, answered and taken as ISO 8601', async () => {
    const schema = await servedSchema();
    const dates = ownTypes(Object.values(schema.getTypeMap()))
      .filter(isObjectType)
      .flatMap((type) => Object.values(type.getFields()).map((field) => ({ where: `${type.name}.${field.name}`, type: field.type })))
      .filter(({ where }) => /_at$|At$/.test(where));
    expect(dates.length).toBeGreaterThanOrEqual(50);
    expect(dates.filter(({ type }) => getNamedType(type).name !== 'DateTime').map(({ where }) => where)).toEqual([]);

    const { apiKey } = await createTestWorkspace();
    await graphql(apiKey, 'mutation { leadsImport(leads: [{ email: "d@x.test" }]) { created } }');
    const listed = await graphql(apiKey, '{ leadsList { leads { created_at email_validated_at } } }');
    expect(listed.data.leadsList.leads[0]).toEqual({
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      email_validated_at: null,
    });
    expect(dateTimeScalar.parseValue('2026-05-01T10:00:00+02:00')).toBe('2026-05-01T10:00:00+02:00');
    expect(() => dateTimeScalar.parseValue('2026-13-01T10:00:00Z')).toThrow('DateTime: an ISO 8601 date-time');
    expect(() => dateTimeScalar.parseValue('yesterday')).toThrow('DateTime');
  });

  it('types statuses as their enums and fixed keys as objects, and offers no value that always fails', async () => {
    const schema = await servedSchema();
    const fieldType = (type: string, field: string) => {
      const named = schema.getType(type);
      if (!isObjectType(named)) throw new Error(`${type} is no object type`);
      return String(named.getFields()[field]!.type);
    };
    expect(fieldType('Lead', 'email_status')).toBe('EmailStatus');
    expect(fieldType('Mutation', 'agentsStart')).toBe('AgentRunStarted!');
    expect(fieldType('AgentRunStarted', 'status')).toBe('AgentRunStartStatus!');
    expect(fieldType('ValidationJob', 'counts')).toBe('ValidationJobCounts!');
    expect(fieldType('ValidationJobCounts', 'accept_all')).toBe('Int!');
    const start = getNamedType(schema.getMutationType()!.getFields().scrapersStart!.type);
    expect(isUnionType(start) && start.getTypes().map((type) => type.name)).toEqual(['ScrapeAccepted', 'ScrapeCompleted']);
    const format = schema.getType('SuppressionListFormat');
    expect(isEnumType(format) && format.getValues().map((value) => value.name)).toEqual(['json']);

    const { apiKey } = await createTestWorkspace();
    const started = await graphql(apiKey, 'mutation { agentsStart(goal: "Florists in Ghent") { status } }');
    expect(started.data.agentsStart.status).toBe('queued');
    // A value an enum does not offer is refused as bad input, naming the argument (and the input field within it).
    const refused = await graphql(apiKey, '{ outreachSuppressionsList(format: csv) { total } }');
    expect(refused.errors[0].extensions).toMatchObject({ code: 'validation_failed', field: 'format' });
    const nested = await graphql(apiKey, 'mutation { leadsImport(leads: [{ email: "n@x.test", status: lost }]) { created } }');
    expect(nested.errors[0].extensions).toMatchObject({ code: 'validation_failed', field: 'leads.status' });
  });

  it('declares one named type per shape, each named by the contract, not by where it was met', async () => {
    const types = ownTypes(Object.values((await servedSchema()).getTypeMap()));
    const shapes = new Map<string, string[]>();
    for (const type of types) {
      if (!isObjectType(type) && !isInputObjectType(type)) continue;
      if (type.name === 'Query' || type.name === 'Mutation') continue;
      const fields = Object.values(type.getFields()).map((field) => `${field.name}: ${String(field.type)}`);
      const shape = `${isInputObjectType(type) ? 'input' : 'type'} { ${fields.sort().join(', ')} }`;
      shapes.set(shape, [...(shapes.get(shape) ?? []), type.name]);
    }
    expect([...shapes.values()].filter((names) => names.length > 1)).toEqual([]);
    const machineMade = types
      .map((type) => type.name)
      .filter((name) => /Item(Input)?$|Option\d|ApiKeyScopes|CurrentUserData[A-Z]/.test(name));
    expect(machineMade).toEqual([]);
    const names = types.map((type) => type.name);
    expect(names).toEqual(expect.arrayContaining(['LeadResult', 'Deletion', 'CreditBalance', 'Permission', 'AgentTool', 'EndpointCall']));
    expect(names).not.toEqual(expect.arrayContaining(['LeadsGetResult']));
  });
});
