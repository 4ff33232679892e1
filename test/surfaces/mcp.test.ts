import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

/** /mcp with the MCP SDK's own client, an API key as the bearer token. */
const server = useApiServer();

async function connect(key: string) {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
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
    expect(list.description).toContain('GET /api/leads');
    expect(list.inputSchema).toMatchObject({ type: 'object', properties: { limit: expect.objectContaining({ maximum: 500 }) } });
    const owner = await connect(workspace.apiKey);
    expect((await owner.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['leads_import', 'agents_start', 'scrapers_start', 'validation_start']));
    await reader.close();
    await owner.close();
  });

  it('calls procedures through the same checks: input validation, permission, and the result as the API answers it', async () => {
    const { apiKey } = await createTestWorkspace();
    const client = await connect(apiKey);
    const imported = await client.callTool({ name: 'leads_import', arguments: { leads: [{ email: 'mcp@x.test', full_name: 'Model Context' }] } });
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

  it('answers 401 without a valid key, naming where its OAuth metadata will be', async () => {
    const res = await fetch(`${server.baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=".*\/\.well-known\/oauth-protected-resource\/mcp"$/);
  });
});
