import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { Page } from 'playwright-core';
import { setPassword } from '../../src/sign-in/sign-in.service.ts';
import { createWorkspace } from '../../src/account/account.service.ts';
import type { TestServer } from './api-server.ts';

export const pkcePair = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** A client's redirect target on loopback: records each callback's query and answers a small page. */
export function useRedirectReceiver() {
  const received: URLSearchParams[] = [];
  const holder = { url: '', received };
  let server: Server;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      // Only the redirects (the browser asks for /favicon.ico too).
      if (url.pathname === '/callback') received.push(url.searchParams);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>You can close this window.</p>');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    holder.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  return holder;
}

export const testPassword = 'correct horse battery staple';

/** A workspace whose owner can sign in with `testPassword`. */
export async function workspaceWithPassword(): Promise<{ workspaceId: string; userId: string; apiKey: string; email: string }> {
  const email = `signin-${randomBytes(4).toString('hex')}@example.test`;
  const workspace = await createWorkspace({ name: 'Signed in', plan: 'free', email });
  await setPassword({ email, password: testPassword });
  return { ...workspace, email };
}

export async function registerClient(server: TestServer, redirectUri: string, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${server.baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Assistant',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...extra,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

export function authorizeUrl(server: TestServer, params: Record<string, string>) {
  const url = new URL(`${server.baseUrl}/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    ...params,
  }))
    url.searchParams.set(name, value);
  return url;
}

/** Signs in on the page the authorization request shows, and allows all but `untick` on the consent page; returns the consent page's page object. */
export async function signInAndConsent(page: Page, url: URL, input: { email: string; password?: string; untick?: string[] }) {
  await page.goto(url.href);
  await page.getByLabel('Email').fill(input.email);
  await page.getByLabel('Password').fill(input.password ?? testPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  for (const scope of input.untick ?? []) await page.locator(`input[name=scope][value="${scope}"]`).uncheck();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(/\/callback\?/);
}

export async function tokenRequest(server: TestServer, form: Record<string, string>) {
  const res = await fetch(`${server.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** How many pixels of a PNG have the colour `rgb` (within a small tolerance): decoded by the browser itself, in a canvas. */
export async function screenshotShowsColor(page: Page, png: Buffer, rgb: [number, number, number]): Promise<number> {
  // A blank page of its own: the pages under test forbid data: images (their Content-Security-Policy).
  const scratch = await page.context().newPage();
  return scratch
    .evaluate(
      async ({ data, rgb }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d')!;
        context.drawImage(image, 0, 0);
        const pixels = context.getImageData(0, 0, image.width, image.height).data;
        let matching = 0;
        for (let i = 0; i < pixels.length; i += 4) {
          if (Math.abs(pixels[i]! - rgb[0]) < 8 && Math.abs(pixels[i + 1]! - rgb[1]) < 8 && Math.abs(pixels[i + 2]! - rgb[2]) < 8)
            matching += 1;
        }
        return matching;
      },
      { data: png.toString('base64'), rgb },
    )
    .finally(() => scratch.close());
}
