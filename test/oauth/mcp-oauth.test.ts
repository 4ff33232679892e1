import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { describe, expect, it } from 'vitest';
import { useApiServer } from '../support/api-server.ts';
import { useBrowser } from '../support/browser.ts';
import { testPassword, useRedirectReceiver, workspaceWithPassword } from '../support/oauth.ts';

// A limit of 5 a minute, to see the token held to the same per-credential limit as a key.
const server = useApiServer({ RATE_LIMIT_PER_MINUTE: '5' }, { publicBaseUrl: true });
const browserHolder = useBrowser();
const redirect = useRedirectReceiver();

/** The MCP SDK's OAuth client, its authorization step done in Chromium by a user who unticks `untick`. */
function sdkAuthProvider(user: { email: string }, untick: string[]) {
  const saved: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string } = {};
  const provider: OAuthClientProvider & { saved: typeof saved; pendingCode?: Promise<string> } = {
    saved,
    get redirectUrl() {
      return redirect.url;
    },
    get clientMetadata() {
      return {
        client_name: 'SDK Assistant',
        redirect_uris: [redirect.url],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    clientInformation: () => saved.client,
    saveClientInformation: (client) => void (saved.client = client),
    tokens: () => saved.tokens,
    saveTokens: (tokens) => void (saved.tokens = tokens),
    saveCodeVerifier: (verifier) => void (saved.verifier = verifier),
    codeVerifier: () => saved.verifier!,
    redirectToAuthorization: (url) => {
      provider.pendingCode = (async () => {
        const context = await browserHolder.browser.newContext();
        const page = await context.newPage();
        await page.goto(url.href);
        await page.getByLabel('Email').fill(user.email);
        await page.getByLabel('Password').fill(testPassword);
        await page.getByRole('button', { name: 'Sign in' }).click();
        for (const scope of untick) await page.locator(`input[name=scope][value="${scope}"]`).uncheck();
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL(/\/callback\?/);
        await context.close();
        return redirect.received.at(-1)!.get('code')!;
      })();
    },
  };
  return provider;
}

const parsed = (result: Awaited<ReturnType<Client['callTool']>>) => JSON.parse((result.content as Array<{ text: string }>)[0]!.text);

describe('the MCP server with OAuth', () => {
  it('lets the SDK client discover, register and authorize, then lists only the granted tools and calls them', async () => {
    const user = await workspaceWithPassword();
    const authProvider = sdkAuthProvider(user, ['write', 'scraper', 'endpoints:invoke', 'leads:validate', 'outreach:send']);
    const url = new URL(`${server.baseUrl}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider });
    await expect(new Client({ name: 'sdk', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await first.finishAuth(await authProvider.pendingCode!);
    expect(authProvider.saved.tokens).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: 'read agents' });

    const client = new Client({ name: 'sdk', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider }));
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['leads_list', 'agents_start', 'agents_run', 'account_currentUser']));
    expect(names).not.toContain('leads_import');
    expect(names).not.toContain('scrapers_start');

    const leads = parsed(await client.callTool({ name: 'leads_list', arguments: {} }));
    expect(leads).toMatchObject({ leads: [], total: 0 });
    const started = parsed(await client.callTool({ name: 'agents_start', arguments: { goal: 'Heads of growth at Lisbon fintechs' } }));
    expect(started).toMatchObject({ run_id: expect.any(String), status: 'queued' });
    const run = parsed(await client.callTool({ name: 'agents_run', arguments: { id: started.run_id } }));
    expect(run).toMatchObject({ id: started.run_id, status: 'queued' });

    // Three procedure calls so far with this token within the minute: two more, then the limit, as for a key.
    const calls = [];
    for (let i = 0; i < 3; i++) calls.push(await client.callTool({ name: 'leads_list', arguments: {} }));
    expect(calls.map((call) => Boolean(call.isError))).toEqual([false, false, true]);
    expect(parsed(calls[2]!)).toMatchObject({ code: 'rate_limited' });
    const keyStillFree = await server.request('GET', '/api/leads', { key: user.apiKey });
    expect(keyStillFree.status).toBe(200);
    await client.close();
  });
});
