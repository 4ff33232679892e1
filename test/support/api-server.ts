import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { startWorker } from '../../src/worker/worker.ts';
import { loadConfig } from '../../src/config.ts';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { createApiServer } from '../../src/http/server.ts';
import { setLogLevel } from '../../src/logger.ts';
import type { Permission } from '../../schema/account.ts';
import type { Plan } from '../../schema/plans.ts';
import { createApiKey } from '../../src/auth/api-key.service.ts';
import { issueOwnerKey } from '../../src/keys/keys.service.ts';
import { createWorkspace } from '../../src/account/account.service.ts';
import { fetchContract, type Contract } from '../contract/openapi-contract.ts';
import { pooledDatabase } from './database.ts';
import { freePort } from './processes.ts';

/** A fixed SECRETS_KEY (32 bytes, base64) for servers the tests boot or spawn with MONGODB_URI, which refuse to start without one. */
export const testSecretsKey = Buffer.alloc(32, 7).toString('base64');

export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestServer {
  baseUrl: string;
  databaseUri: string;
  request<T = any>(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<TestResponse<T>>;
}

/**
 * Boots the real API server for one test file, on its own database.
 * `env` overrides configuration (for example RATE_LIMIT_PER_MINUTE);
 * `worker: true` also runs the job worker in the process; `publicBaseUrl: true`
 * serves at PUBLIC_BASE_URL (what the OAuth issuer must equal); `databaseUri`
 * names the database to use, once the file's other beforeAll hooks have run
 * (by default one of its own on the run's FerretDB, emptied: pooledDatabase).
 *
 * Every response `request` receives for a documented REST path is checked
 * against the served /openapi.json (test/contract/openapi-contract.ts): a
 * status the document does not list for that path and method, or a body
 * that does not match its schema, fails the test that made the request.
 */
export function useApiServer(
  env: Record<string, string> = {},
  options: { worker?: boolean; publicBaseUrl?: boolean; databaseUri?: () => string } = {},
): TestServer {
  const server = {} as TestServer;
  let close: () => Promise<void>;
  beforeAll(async () => {
    setLogLevel('silent');
    const pooled = options.databaseUri ? null : await pooledDatabase();
    const databaseUri = options.databaseUri?.() ?? pooled!.uri;
    await connectDatabase(databaseUri);
    // `publicBaseUrl`: PUBLIC_BASE_URL is the address served at (the OAuth issuer must be), so the port is picked first.
    const port = options.publicBaseUrl ? await freePort() : 0;
    const publicUrl = options.publicBaseUrl ? { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } : {};
    const config = loadConfig({
      RATE_LIMIT_PER_MINUTE: '10000',
      PORT: String(port),
      SECRETS_KEY: testSecretsKey,
      ...publicUrl,
      ...env,
      MONGODB_URI: databaseUri,
    });
    const http = createApiServer(config);
    const worker = options.worker ? await startWorker({ concurrency: 4 }) : undefined;
    await new Promise<void>((done) => http.listen(port, '127.0.0.1', done));
    server.baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    server.databaseUri = databaseUri;
    let contract: Promise<Contract> | undefined;
    server.request = async (method, path, options = {}) => {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body });
      const text = await response.text();
      const type = response.headers.get('content-type') ?? '';
      // JSON bodies only: a JSON Lines download (application/jsonl) stays text.
      const parsed = /^application\/([\w.-]+\+)?json\b/i.test(type) && text ? JSON.parse(text) : text;
      contract ??= fetchContract(server.baseUrl);
      const violation = (await contract).check(method, path, response.status, parsed, type, response.headers);
      if (violation) throw new Error(`OpenAPI contract: ${violation}`);
      return { status: response.status, body: parsed, headers: response.headers };
    };
    close = async () => {
      await worker?.stop();
      http.closeAllConnections();
      await new Promise<void>((done) => http.close(() => done()));
      await disconnectDatabase();
      pooled?.release();
    };
  });
  afterAll(() => close?.());
  return server;
}

export interface TestWorkspace {
  workspaceId: string;
  brandId: string;
  userId: string;
  /** The owner's key (`*`). */
  apiKey: string;
  keyWith(...scopes: Permission[]): Promise<string>;
}

let counter = 0;

/** A key held by the workspace's owner, made as the CLI makes one; `brandId` binds it to a brand. */
export async function createOwnerKey(workspaceId: string, name: string, scopes: Permission[], brandId: string | null = null) {
  const { key, secret } = await issueOwnerKey(workspaceId, name, scopes, brandId);
  return { id: key.id, apiKey: secret };
}

/** A workspace made the way the CLI makes one, with helpers for narrower keys. */
export async function createTestWorkspace(plan: Plan = 'free'): Promise<TestWorkspace> {
  counter += 1;
  const created = await createWorkspace({ name: `Workspace ${counter}`, plan, email: `owner${counter}@example.test` });
  return {
    ...created,
    // Outside the plan's limit of active keys (src/keys): some tests spread calls over more keys than any plan allows.
    keyWith: async (...scopes) =>
      (await createApiKey({ workspaceId: created.workspaceId, userId: created.userId, name: `key ${scopes.join(',')}`, scopes })).apiKey,
  };
}

/** GET `path` from the server at `baseUrl` addressed to `host` (fetch cannot set Host): the status, headers and body text. */
export function requestWithHost(
  baseUrl: string,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpGet({ hostname, port, path, headers: { ...headers, host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('error', reject);
  });
}
