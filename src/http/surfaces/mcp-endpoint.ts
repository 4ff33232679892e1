import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { authenticate } from '../../auth/authenticate.ts';
import type { Principal } from '../../auth/principal.ts';
import { baseUrl } from '../../config.ts';
import { toErrorResponse } from '../../errors/error-response.ts';
import type { AppRouter } from '../router.ts';
import { createRequestContext } from '../../trpc/context.ts';
import { procedureCaller, procedureDefs, type ProcedureDef } from '../../trpc/procedure-defs.ts';
import { jsonAnswer } from '../../web/answers.ts';
import { readJson } from '../../web/request-body.ts';
import { toolResult, toolShape, type ToolShape } from './mcp-tools.ts';

interface Tool {
  name: string;
  path: string;
  def: ProcedureDef;
  shape: ToolShape;
  wrapsOutput: boolean;
}

/** An MCP tool name for a procedure path: `leads.list` → `leads_list`. */
const toolName = (path: string) => path.replace(/\./g, '_');
const allowed = (principal: Principal, def: ProcedureDef) => {
  const permission = def.meta?.permission;
  return permission === 'any' || principal.scopes.includes('*') || (permission !== undefined && principal.scopes.includes(permission));
};

/**
 * The MCP server at /mcp (Streamable HTTP, stateless): one tool per
 * procedure of the router the credential may call, named after its path,
 * described and typed from its zod contract, and called through the same
 * caller as every surface (authentication, rate limit, permission,
 * validation and credits alike). A bearer API key works; without a valid
 * credential the answer is 401 naming the protected-resource metadata.
 */
export function createMcpEndpoint(
  appRouter: AppRouter,
  options: { rateLimitPerMinute: number; maxBodyBytes: number; onFault: (error: unknown) => void },
) {
  const call = procedureCaller(appRouter);
  const tools: Tool[] = Object.entries(procedureDefs(appRouter))
    .filter(([, def]) => def.type !== 'subscription' && def.meta?.openapi)
    .map(([path, def]) => ({ name: toolName(path), path, def, ...toolShape(path, def) }));

  return async (httpRequest: Request): Promise<Response> => {
    let principal: Principal;
    let body: unknown;
    try {
      principal = await authenticate(httpRequest.headers.get('authorization') ?? undefined);
      body = httpRequest.method === 'POST' ? (await readJson(httpRequest, options.maxBodyBytes))?.value : undefined;
    } catch (error) {
      const { status, body, headers } = toErrorResponse(error);
      if (status >= 500) options.onFault(error);
      const challenge = { 'WWW-Authenticate': `Bearer resource_metadata="${baseUrl()}/.well-known/oauth-protected-resource/mcp"` };
      return jsonAnswer(status, body, status === 401 ? challenge : headers);
    }
    const mine = tools.filter((tool) => allowed(principal, tool.def));
    const server = new Server({ name: 'leadops', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: mine.map((tool) => ({ name: tool.name, ...tool.shape })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = mine.find((t) => t.name === request.params.name);
      // Not a tool this credential has: a protocol error, as MCP specifies, not a failed call.
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      const ctx = createRequestContext(httpRequest.headers, options.rateLimitPerMinute);
      const takesInput = tool.def.inputs[0] !== undefined && tool.def.inputs[0].def.type !== 'void';
      try {
        const output = await call(ctx, tool.path, takesInput ? (request.params.arguments ?? {}) : undefined);
        return toolResult(tool, output);
      } catch (error) {
        const { status, body } = toErrorResponse(error);
        if (status >= 500) options.onFault(error);
        return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify(body) }] };
      }
    });
    // Stateless: a server and transport per request, nothing kept between them; in JSON mode the answer is whole.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(httpRequest, { parsedBody: body });
    } finally {
      await server.close();
    }
  };
}
