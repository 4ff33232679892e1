import { afterEach, describe, expect, it } from 'vitest';
import { Lead } from '../../src/leads/lead.models.ts';
import { setLogLevel, setLogSink } from '../../src/logger.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

/**
 * A fault outside the procedures is logged at error level with the request's
 * id, as REST's and tRPC's are (request-id.test.ts). The GraphQL limits are
 * raised out of the way here, so a query nested deeper than the parser's stack
 * reaches the parser: a fault of the server's making.
 */
const server = useApiServer({ GRAPHQL_MAX_DEPTH: '1000000', GRAPHQL_MAX_TOKENS: '10000000' });

afterEach(() => {
  setLogSink(null);
  setLogLevel('silent');
});

function captureErrors() {
  const lines: Record<string, unknown>[] = [];
  setLogLevel('error');
  setLogSink((line) => lines.push(JSON.parse(line)));
  return () => lines.filter((line) => line.message === 'request failed');
}

describe('faults outside the procedures', () => {
  it('logs a GraphQL fault yoga masks, with the request id, and answers it without internals', async () => {
    const faults = captureErrors();
    const deep = `{${'a{'.repeat(100_000)}b${'}'.repeat(100_000)}}`;
    const res = await server.request('POST', '/graphql', { body: { query: deep }, headers: { 'x-request-id': 'graphql-fault-1' } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      errors: [{ message: 'Internal server error', extensions: { error: 'Internal server error', code: 'internal_error', status: 500 } }],
    });
    expect(faults()).toEqual([
      expect.objectContaining({ level: 'error', requestId: 'graphql-fault-1', error: expect.stringContaining('RangeError') }),
    ]);
  });

  it('logs a fault of an MCP tool call, with the request id', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    // A record the service cannot describe with its own output schema (as in errors.test.ts).
    await Lead.collection.insertOne({
      _id: 'corrupt-lead' as never,
      workspaceId,
      brandId: 'b',
      emailKey: '~1',
      linkedinKey: '~1',
      status: 'mystery',
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const faults = captureErrors();
    const res = await server.request('POST', '/mcp', {
      key: apiKey,
      headers: { accept: 'application/json, text/event-stream', 'x-request-id': 'mcp-fault-1' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'leads_list', arguments: {} } },
    });
    expect(res.body.result).toMatchObject({
      isError: true,
      content: [{ text: JSON.stringify({ error: 'Internal server error', code: 'internal_error' }) }],
    });
    expect(faults()).toEqual([expect.objectContaining({ level: 'error', requestId: 'mcp-fault-1' })]);
  });
});
