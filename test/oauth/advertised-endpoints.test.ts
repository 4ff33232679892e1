import { describe, expect, it } from 'vitest';
import { oauthProvider } from '../../src/oauth/oauth-provider.ts';
import { useApiServer } from '../support/api-server.ts';
import { useBrowser } from '../support/browser.ts';
import { pkcePair, registerClient, signInAndConsent, useRedirectReceiver, workspaceWithPassword } from '../support/oauth.ts';

const server = useApiServer({}, { publicBaseUrl: true });
const browserHolder = useBrowser();
const redirect = useRedirectReceiver();

const metadata = async () => (await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`)).json();

describe('what the authorization server advertises', () => {
  it('is served: every endpoint URL answers, and nothing names DPoP', async () => {
    const document = await metadata();
    expect(document).not.toHaveProperty('dpop_signing_alg_values_supported');
    expect(document.pushed_authorization_request_endpoint).toBe(`${server.baseUrl}/oauth/par`);
    const endpoints = Object.entries(document).filter(([name]) => name.endsWith('_endpoint') || name === 'jwks_uri');
    expect(endpoints.length).toBeGreaterThanOrEqual(7);
    for (const [name, url] of endpoints) {
      const answer = await fetch(url as string, {
        method: name === 'authorization_endpoint' || name === 'jwks_uri' || name === 'end_session_endpoint' ? 'GET' : 'POST',
        redirect: 'manual',
      });
      expect({ name, status: answer.status }).not.toEqual({ name, status: 404 });
    }
  });

  it('takes a pushed authorization request (RFC 9126) with the resource as a client normalises it, and issues a bearer token even when the client sends a DPoP proof', async () => {
    const owner = await workspaceWithPassword();
    const clientId = (await registerClient(server, redirect.url)).body.client_id as string;
    const pkce = pkcePair();
    const resource = new URL((await (await fetch(`${server.baseUrl}/.well-known/oauth-protected-resource`)).json()).resource).href;
    expect(resource).toBe(`${server.baseUrl}/`);

    const pushed = await fetch(`${server.baseUrl}/oauth/par`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: redirect.url,
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
        scope: 'read',
        resource,
        state: 'par-state',
      }),
    });
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri, expires_in: expiresIn } = await pushed.json();
    expect(requestUri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(expiresIn).toBeGreaterThan(0);

    const url = new URL(`${server.baseUrl}/oauth/authorize`);
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('request_uri', requestUri);
    const context = await browserHolder.browser.newContext();
    await signInAndConsent(await context.newPage(), url, { email: owner.email });
    await context.close();
    const callback = redirect.received.at(-1)!;
    expect(callback.get('state')).toBe('par-state');

    const res = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      // A proof this server does not take: it must not bind the token to a key the API would then ignore.
      headers: { 'content-type': 'application/x-www-form-urlencoded', DPoP: 'eyJ0eXAiOiJkcG9wK2p3dCJ9.e30.c2ln' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.get('code')!,
        redirect_uri: redirect.url,
        client_id: clientId,
        code_verifier: pkce.verifier,
        resource,
      }),
    });
    const token = await res.json();
    expect(res.status).toBe(200);
    expect(token.token_type).toBe('Bearer');
    const me = await server.request('GET', '/api/user', { key: token.access_token });
    expect(me.status).toBe(200);
    expect(me.body.data.userId).toBe(owner.userId);

    // The DPoP scheme is refused with what to do instead.
    const asDpop = await fetch(`${server.baseUrl}/api/user`, { headers: { authorization: `DPoP ${token.access_token}` } });
    expect(asDpop.status).toBe(401);
    expect((await asDpop.json()).error).toContain('Authorization: Bearer');
  });

  it('refuses a DPoP-bound token presented as a bearer token, on REST, GraphQL, tRPC and MCP', async () => {
    const owner = await workspaceWithPassword();
    const clientId = (await registerClient(server, redirect.url)).body.client_id as string;
    const provider = oauthProvider();
    // As a token issued while DPoP was on would be stored: bound to a key thumbprint.
    const bound = new provider.AccessToken({
      accountId: owner.userId,
      client: await provider.Client.find(clientId),
      aud: server.baseUrl,
      scope: 'read',
      gty: 'authorization_code',
      jkt: 'l9Vm6cvqkWjXwYUa1ZrGqrVM3TnXkGnO0Y9Xb7aXH1E',
      extra: { workspace_id: owner.workspaceId },
    } as never);
    const value = await bound.save();
    const rest = await server.request('GET', '/api/user', { key: value });
    expect(rest.status).toBe(401);
    expect(rest.body.error).toContain('DPoP');
    const graphql = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${value}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ leadsCapacity { used } }' }),
    });
    expect(JSON.stringify(await graphql.json())).toContain('DPoP');
    const trpc = await fetch(`${server.baseUrl}/trpc/account.currentUser`, { headers: { authorization: `Bearer ${value}` } });
    expect(trpc.status).toBe(401);
    const mcp = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${value}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
  });
});
