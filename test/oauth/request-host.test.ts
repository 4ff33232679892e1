import { describe, expect, it } from 'vitest';
import { requestWithHost, useApiServer } from '../support/api-server.ts';

// No PUBLIC_BASE_URL: local use, where a client may call the API as 127.0.0.1 or as localhost.
const server = useApiServer();
const port = () => new URL(server.baseUrl).port;

describe('OAuth URLs without PUBLIC_BASE_URL', () => {
  it('name the origin the client addressed, 127.0.0.1 or localhost', async () => {
    for (const origin of [server.baseUrl, `http://localhost:${port()}`]) {
      const host = new URL(origin).host;
      const resource = JSON.parse((await requestWithHost(server.baseUrl, '/.well-known/oauth-protected-resource/mcp', host)).body);
      expect(resource).toMatchObject({
        resource: `${origin}/mcp`,
        authorization_servers: [origin],
        resource_documentation: `${origin}/docs`,
      });
      const api = JSON.parse((await requestWithHost(server.baseUrl, '/.well-known/oauth-protected-resource', host)).body);
      expect(api.resource).toBe(origin);
      const authorizationServer = JSON.parse((await requestWithHost(server.baseUrl, '/.well-known/oauth-authorization-server', host)).body);
      expect(authorizationServer).toMatchObject({ issuer: origin, token_endpoint: `${origin}/oauth/token` });
    }
  });

  it('point an MCP client without a credential at the metadata on the host it called', async () => {
    const answer = await fetch(`${server.baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
  });
});
