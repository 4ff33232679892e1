import { describe, expect, it } from 'vitest';
import { setPassword } from '../../src/sign-in/sign-in.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useBrowser } from '../support/browser.ts';
import {
  authorizeUrl,
  pkcePair,
  registerClient,
  screenshotShowsColor,
  signInAndConsent,
  testPassword,
  tokenRequest,
  useRedirectReceiver,
  workspaceWithPassword,
} from '../support/oauth.ts';

const server = useApiServer({}, { publicBaseUrl: true });
const browserHolder = useBrowser();
const redirect = useRedirectReceiver();

describe('OAuth for MCP clients, as a client performs it', () => {
  it('discovers, registers, authorizes with PKCE in a browser, and uses, refreshes and revokes the token', async () => {
    const owner = await workspaceWithPassword();

    // A 401 from /mcp names the protected-resource metadata, which names the authorization server.
    const challenge = await fetch(`${server.baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(challenge.status).toBe(401);
    const resourceMetadataUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')![1]!;
    expect(resourceMetadataUrl).toBe(`${server.baseUrl}/.well-known/oauth-protected-resource/mcp`);
    const resourceMetadata = await (await fetch(resourceMetadataUrl)).json();
    expect(resourceMetadata).toMatchObject({
      resource: `${server.baseUrl}/mcp`,
      authorization_servers: [server.baseUrl],
      scopes_supported: expect.arrayContaining(['read', 'write', 'agents']),
    });
    const rootMetadata = await (await fetch(`${server.baseUrl}/.well-known/oauth-protected-resource`)).json();
    expect(rootMetadata.resource).toBe(server.baseUrl);

    const metadata = await (await fetch(`${resourceMetadata.authorization_servers[0]}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      issuer: server.baseUrl,
      authorization_endpoint: `${server.baseUrl}/oauth/authorize`,
      token_endpoint: `${server.baseUrl}/oauth/token`,
      registration_endpoint: `${server.baseUrl}/oauth/register`,
      revocation_endpoint: `${server.baseUrl}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      grant_types_supported: expect.arrayContaining(['authorization_code', 'refresh_token']),
    });
    // The path-suffixed form (RFC 8414 section 3.1) answers the same document.
    expect(await (await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server/mcp`)).json()).toEqual(metadata);

    const registered = await registerClient(server, redirect.url);
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({
      client_id: expect.any(String),
      client_name: 'Test Assistant',
      redirect_uris: [redirect.url],
      token_endpoint_auth_method: 'none',
    });
    const clientId = registered.body.client_id as string;

    const { verifier, challenge: codeChallenge } = pkcePair();
    const url = authorizeUrl(server, {
      client_id: clientId,
      redirect_uri: redirect.url,
      code_challenge: codeChallenge,
      scope: 'read write agents',
      resource: resourceMetadata.resource,
    });
    const context = await browserHolder.browser.newContext();
    const page = await context.newPage();
    await page.goto(url.href);
    // The sign-in form renders: its button's blue is on the screen.
    expect(await screenshotShowsColor(page, await page.screenshot(), [0x2f, 0x5b, 0xd3])).toBeGreaterThan(500);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Wrong email or password');
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign in' }).click();

    // Consent names the client and the permissions asked for, each ticked; the user unticks write.
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Allow Test Assistant?');
    const offered = await page
      .locator('input[name=scope]')
      .evaluateAll((boxes) => boxes.map((box) => [(box as HTMLInputElement).value, (box as HTMLInputElement).checked]));
    expect(offered).toEqual([
      ['read', true],
      ['write', true],
      ['agents', true],
    ]);
    expect(await screenshotShowsColor(page, await page.screenshot(), [0x2f, 0x5b, 0xd3])).toBeGreaterThan(500);
    await page.locator('input[name=scope][value=write]').uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/\/callback\?/);
    await context.close();
    const callback = redirect.received.at(-1)!;
    expect(callback.get('state')).toBe(url.searchParams.get('state'));
    expect(callback.get('iss')).toBe(server.baseUrl);

    const exchanged = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code: callback.get('code')!,
      redirect_uri: redirect.url,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({
      token_type: 'Bearer',
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      expires_in: 3600,
      scope: 'read agents',
    });
    const { access_token: accessToken, refresh_token: refreshToken } = exchanged.body;

    // The token is accepted where a key is: the same user and workspace, only the permissions granted.
    const me = await server.request('GET', '/api/user', { key: accessToken });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      userId: owner.userId,
      email: owner.email,
      apiKey: { scopes: ['read', 'agents'], status: 'active', rateLimit: 10000 },
    });
    expect(me.body.data.apiKey.id).not.toContain(accessToken.slice(0, 12));
    const asOwner = await server.request('POST', '/api/leads', {
      key: owner.apiKey,
      body: { leads: [{ email: 'ada@x.test', full_name: 'Ada' }] },
    });
    expect(asOwner.status).toBe(201);
    const leads = await server.request('GET', '/api/leads', { key: accessToken });
    expect(leads.status).toBe(200);
    expect(leads.body.leads.map((lead: { email: string }) => lead.email)).toEqual(['ada@x.test']);
    const write = await server.request('POST', '/api/leads', { key: accessToken, body: { leads: [{ email: 'bob@x.test' }] } });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ code: 'missing_permission', permission: 'write' });
    // GraphQL (and every surface) authenticates the same way.
    const graphql = await server.request('POST', '/graphql', {
      key: accessToken,
      body: { query: '{ leadsList(limit: 10) { total leads { email } } }' },
    });
    expect(graphql.body).toEqual({ data: { leadsList: { total: 1, leads: [{ email: 'ada@x.test' }] } } });

    // Refresh: a new access token and a new refresh token (rotation), the same grant.
    const refreshed = await tokenRequest(server, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(refreshToken);
    expect(refreshed.body.scope).toBe('read agents');
    expect((await server.request('GET', '/api/user', { key: refreshed.body.access_token })).status).toBe(200);

    // Revoking the refresh token ends the grant: its access tokens stop working too.
    const revoked = await fetch(`${server.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshed.body.refresh_token, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    const after = await server.request('GET', '/api/user', { key: refreshed.body.access_token });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('unauthorized');
  });

  it("stops a removed member's access and refresh tokens at once, and leaves the owner's working", async () => {
    const { apiKey } = await createTestWorkspace('starter');
    const added = await server.request('POST', '/api/members', { key: apiKey, body: { email: 'mia@acme.test', role: 'member' } });
    expect(added.status).toBe(201);
    await setPassword({ email: 'mia@acme.test', password: testPassword });
    const clientId = (await registerClient(server, redirect.url)).body.client_id as string;
    const { verifier, challenge } = pkcePair();
    const url = authorizeUrl(server, {
      client_id: clientId,
      redirect_uri: redirect.url,
      code_challenge: challenge,
      scope: 'read offline_access',
    });
    const context = await browserHolder.browser.newContext();
    await signInAndConsent(await context.newPage(), url, { email: 'mia@acme.test' });
    await context.close();
    const tokens = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code: redirect.received.at(-1)!.get('code')!,
      redirect_uri: redirect.url,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
    const me = await server.request('GET', '/api/user', { key: tokens.body.access_token });
    expect(me.body.data).toMatchObject({ userId: added.body.member.id, email: 'mia@acme.test' });

    expect((await server.request('DELETE', `/api/members/${added.body.member.id}`, { key: apiKey })).status).toBe(200);
    const after = await server.request('GET', '/api/user', { key: tokens.body.access_token });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('unauthorized');
    const refreshed = await tokenRequest(server, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect((await server.request('GET', '/api/user', { key: apiKey })).status).toBe(200);
  });
});
