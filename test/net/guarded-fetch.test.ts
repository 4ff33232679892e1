import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { guardedFetch } from '../../src/net/guarded-fetch.ts';

/** The fetch SDKs get (the openai SDK's) goes through the outbound address guard. */
let server: Server;
let url = '';
let connections = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () =>
      res
        .writeHead(201, { 'content-type': 'application/json', 'x-echo': req.headers['x-test'] ?? '' })
        .end(JSON.stringify({ method: req.method, body })),
    );
  });
  server.on('connection', () => connections++);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/echo`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe('guardedFetch', () => {
  it('refuses a loopback address the policy does not allow, before connecting', async () => {
    loadConfig({});
    await expect(guardedFetch(url, { method: 'POST', body: '{}' })).rejects.toMatchObject({
      code: 'url_not_allowed',
      message: expect.stringContaining('127.0.0.1 resolves to 127.0.0.1'),
    });
    expect(connections).toBe(0);
  });

  it("answers like fetch for an allowed address: status, headers and body, the request's method, headers and body sent", async () => {
    loadConfig({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' });
    const response = await guardedFetch(url, { method: 'POST', headers: { 'x-test': 'yes' }, body: JSON.stringify({ hello: 'world' }) });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-echo')).toBe('yes');
    expect(await response.json()).toEqual({ method: 'POST', body: '{"hello":"world"}' });
  });
});
