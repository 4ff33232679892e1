import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

/** /mcp with the MCP SDK's own client, an API key as the bearer token. */
const server = useApiServer();

async function connect(key: string) {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}
const parsed = (result: Awaited<ReturnType<Client['callTool']>>) => JSON.parse((result.content as Array<{ text: string }>)[0]!.text);

describe('the MCP server', () => {
  it('lists one tool per procedure the key may call, typed and described from the router', async () => {
    const workspace = await createTestWorkspace();
    const reader = await connect(await workspace.keyWith('read'));
    const { tools } = await reader.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('leads_list');
    expect(names).toContain('agents_run');
    expect(names).not.toContain('leads_import');
    expect(names).not.toContain('agents_start');
    const list = tools.find((tool) => tool.name === 'leads_list')!;
    expect(list.description).toMatch(/^List and search leads\. \w/);
    expect(list.inputSchema).toMatchObject({ type: 'object', properties: { limit: expect.objectContaining({ maximum: 500 }) } });
    const owner = await connect(workspace.apiKey);
    expect((await owner.listTools()).tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['leads_import', 'agents_start', 'scrapers_start', 'validation_start']),
    );
    await reader.close();
    await owner.close();
  });

  it('calls procedures through the same checks: input validation, permission, and the result as the API answers it', async () => {
    const { apiKey } = await createTestWorkspace();
    const client = await connect(apiKey);
    const imported = await client.callTool({
      name: 'leads_import',
      arguments: { leads: [{ email: 'mcp@x.test', full_name: 'Model Context' }] },
    });
    expect(imported.isError).toBeFalsy();
    expect(parsed(imported)).toMatchObject({ created: 1 });
    const listed = parsed(await client.callTool({ name: 'leads_list', arguments: { q: 'mcp' } }));
    expect(listed.leads.map((lead: { email: string }) => lead.email)).toEqual(['mcp@x.test']);
    const bad = await client.callTool({ name: 'leads_list', arguments: { limit: 900 } });
    expect(bad.isError).toBe(true);
    expect(parsed(bad)).toMatchObject({ code: 'validation_failed' });
    // A long piece of work is a start tool and a status tool the client polls.
    const started = parsed(await client.callTool({ name: 'agents_start', arguments: { goal: 'CTOs of fintech companies in Berlin' } }));
    const run = parsed(await client.callTool({ name: 'agents_run', arguments: { id: started.run_id } }));
    expect(run).toMatchObject({ id: started.run_id, status: 'queued' });
    await client.close();
  });

  it('says what each tool does to the workspace, and types its input and output without references', async () => {
    const client = await connect((await createTestWorkspace()).apiKey);
    const { tools } = await client.listTools();
    const tool = (name: string) => tools.find((t) => t.name === name)!;
    // Hints as a client reads them, MCP's defaults filled in (destructive and idempotent mean something only for a writer).
    const hints = (name: string) => {
      const given = tool(name).annotations ?? {};
      if (given.readOnlyHint) return given;
      return { readOnlyHint: false, destructiveHint: given.destructiveHint ?? true, idempotentHint: given.idempotentHint ?? false };
    };
    expect(hints('leads_list')).toEqual({ readOnlyHint: true });
    expect(hints('leads_import')).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(hints('leads_delete')).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints('webhooks_delete')).toMatchObject({ destructiveHint: true });
    expect(hints('leads_update')).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    for (const { name, inputSchema, outputSchema, annotations } of tools) {
      expect(JSON.stringify({ inputSchema, outputSchema }), name).not.toMatch(/"\$ref"|"\$defs"/);
      expect(outputSchema?.type, name).toBe('object');
      expect(annotations, name).toBeTypeOf('object');
      // An open object says so: no bare `additionalProperties: {}` with no keyword and no description.
      expect(JSON.stringify(inputSchema), name).not.toContain('"additionalProperties":{}');
    }
    // A list answer is wrapped, as an MCP output is an object.
    expect(tool('agents_runs').outputSchema).toMatchObject({ required: ['result'], properties: { result: { type: 'array' } } });
    await client.close();
  });

  it('answers each call with structuredContent that its outputSchema validates (ajv)', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    const client = await connect(apiKey);
    const schemas = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool.outputSchema]));
    const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
    const check = async (name: string, args: Record<string, unknown> = {}) => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      const validate = ajv.compile(schemas.get(name)!);
      expect(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      return result.structuredContent as Record<string, any>;
    };
    const imported = await check('leads_import', {
      leads: [{ email: 'typed@x.test', full_name: 'Typed Output', custom: { tier: 'gold' } }],
    });
    const listed = await check('leads_list', { q: 'typed' });
    expect(listed.leads[0].email).toBe('typed@x.test');
    await check('leads_get', { id: listed.leads[0].id });
    await check('account_currentUser');
    await check('outreach_replies_list');
    await check('outreach_stats_get');
    await check('agents_start', { goal: 'Founders of bakeries in Lyon' });
    const runs = await check('agents_runs');
    expect(runs.result).toHaveLength(1);
    await check('endpoints_list');
    expect(imported.created).toBe(1);
    await client.close();
  });

  it('lists every tool for a full-access key in under 100 KB, each input schema compiling, while calls are checked in full', async () => {
    const { apiKey } = await createTestWorkspace();
    const listed = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const text = await listed.text();
    const { tools } = JSON.parse(text).result as { tools: Array<Record<string, any>> };
    expect(tools.length).toBeGreaterThanOrEqual(75);
    expect(Buffer.byteLength(text)).toBeLessThan(100_000);
    const ajv = addFormats.default(new Ajv2020({ strict: true, allErrors: true }));
    for (const { name, inputSchema, outputSchema } of tools) {
      expect(() => ajv.compile(inputSchema), name).not.toThrow();
      expect(() => ajv.compile(outputSchema), name).not.toThrow();
    }
    // What the listed schemas leave to the server is still refused: here the id's pattern, which its `format` stands for.
    const client = await connect(apiKey);
    expect(JSON.stringify(tools.find((tool) => tool.name === 'leads_get')!.inputSchema)).not.toContain('"pattern"');
    const malformed = await client.callTool({ name: 'leads_get', arguments: { id: 'not-an-id' } });
    expect(parsed(malformed)).toMatchObject({ code: 'validation_failed', field: 'id' });
    await client.close();
  });

  it('writes the tool list as schema checkers and models read it: types as anyOf, no schema that says nothing, summaries as sentences', async () => {
    const client = await connect((await createTestWorkspace()).apiKey);
    const { tools } = await client.listTools();
    const typeless: string[] = [];
    const typeArrays: string[] = [];
    const visit = (node: unknown, where: string, isSchema: boolean): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${where}/${i}`, isSchema));
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (isSchema && !['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const'].some((key) => key in schema)) typeless.push(where);
      if (isSchema && Array.isArray(schema.type)) typeArrays.push(where);
      for (const [key, value] of Object.entries(schema)) {
        if (key === 'properties') for (const [name, sub] of Object.entries(value as object)) visit(sub, `${where}/${name}`, true);
        else if (['items', 'propertyNames', 'not'].includes(key) || (key === 'additionalProperties' && typeof value === 'object'))
          visit(value, `${where}/${key}`, true);
        else if (['anyOf', 'oneOf', 'allOf'].includes(key)) visit(value, `${where}/${key}`, true);
      }
    };
    for (const { name, title, description, inputSchema, outputSchema } of tools) {
      visit(inputSchema, `${name}/input`, true);
      visit(outputSchema, `${name}/output`, true);
      expect(description, name).toMatch(new RegExp(`^${title!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[.!?]( |$)`));
    }
    expect(typeless).toEqual([]);
    expect(typeArrays).toEqual([]);
    const list = tools.find((tool) => tool.name === 'leads_list')!;
    expect(list.inputSchema.properties!.status).toMatchObject({ type: 'string', enum: expect.arrayContaining(['new', 'archived']) });
    await client.close();
  });

  it('answers an unknown tool with the protocol error, not a failed call', async () => {
    const client = await connect(await (await createTestWorkspace()).keyWith('read'));
    const error = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    // A tool the key may not call is unknown to it as well.
    expect(await client.callTool({ name: 'leads_import', arguments: { leads: [] } }).catch((e: McpError) => e.code)).toBe(
      ErrorCode.InvalidParams,
    );
    await client.close();
  });

  it('answers 401 without a valid key, naming where its OAuth metadata will be', async () => {
    const res = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=".*\/\.well-known\/oauth-protected-resource\/mcp"$/);
  });
});
