import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useApiServer } from '../support/api-server.ts';
import { authorizeUrl, pkcePair, useRedirectReceiver } from '../support/oauth.ts';
import { selfSignedCertificate, serveTls, tripwire, type TlsSite, type Tripwire } from '../support/tls-sites.ts';

// client.test is answered by the outbound resolver itself (127.0.0.1, exempted here); hidden.test points at
// 127.0.0.2, which the address guard refuses.
const certificate = selfSignedCertificate(['client.test', 'hidden.test']);
const server = useApiServer(
  {
    OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1',
    OUTBOUND_HOST_OVERRIDES: 'client.test=127.0.0.1,hidden.test=127.0.0.2',
    OUTBOUND_CA_FILE: certificate.certFile,
  },
  { publicBaseUrl: true },
);
const redirect = useRedirectReceiver();
let site: TlsSite;
let hidden: Tripwire;

beforeAll(async () => {
  site = await serveTls((_req, res, url) => {
    const clientId = `https://client.test:${site.port}${url.pathname}`;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        client_id: clientId,
        client_name: 'Metadata Client',
        redirect_uris: [redirect.url],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      }),
    );
  }, certificate);
  hidden = await tripwire('127.0.0.2', site.port);
});
afterAll(async () => {
  await site?.close();
  await hidden?.close();
});

describe('Client ID Metadata Documents', () => {
  it('take a client from its https client_id URL, fetched through the address guard', async () => {
    const clientId = `https://client.test:${site.port}/oauth/client.json`;
    const res = await fetch(
      authorizeUrl(server, { client_id: clientId, redirect_uri: redirect.url, code_challenge: pkcePair().challenge }),
      { redirect: 'manual' },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/\/oauth\/interaction\//);
    const cookie = res.headers
      .getSetCookie()
      .map((set) => set.split(';')[0])
      .join('; ');
    const signIn = await fetch(new URL(res.headers.get('location')!, server.baseUrl), { headers: { cookie } });
    expect(signIn.status).toBe(200);
    expect(await signIn.text()).toContain('Metadata Client asks to use the API on your behalf');
    expect(site.hits).toContain('/oauth/client.json');

    const refused = await fetch(
      authorizeUrl(server, {
        client_id: `https://hidden.test:${site.port}/client.json`,
        redirect_uri: redirect.url,
        code_challenge: pkcePair().challenge,
      }),
      { redirect: 'manual' },
    );
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('invalid_client');
    expect(hidden.connections()).toBe(0);
  });
});
