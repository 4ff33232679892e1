/**
 * What an OAuth access token costs at use, beside an API key: GET /api/user
 * through the real API server in this process, with a pool of keys and a
 * pool of access tokens (each held under the real 60/minute limit), with
 * BENCH_STORED (default 5,000) other tokens in the store; the floor is
 * /healthz (no credential; it asks the database at most once a second).
 *
 *   npm run bench:oauth                      # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:oauth
 */
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { setLogLevel } from '../src/logger.ts';
import { oauthProvider } from '../src/oauth/oauth-provider.ts';
import { apiResource } from '../src/oauth/oauth-scopes.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { inProcessApi } from './support-api.ts';
import { formatFigures, loadWithKeys } from './support-load.ts';
import { benchStore, createKeys } from './support-store.ts';

const credentials = Number(process.env.BENCH_KEYS ?? 200);
const stored = Number(process.env.BENCH_STORED ?? 5_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = 10;

const store = benchStore('bench-oauth');
const database = await store.open();
setLogLevel('warn');
await connectDatabase(database.uri);
const { server, base } = await inProcessApi(database.uri);

const workspace = await createWorkspace({ name: 'Bench', plan: 'business', email: 'bench@example.test' });
const keys = await createKeys(workspace.workspaceId, credentials, 'oauth bench');
const registration = await fetch(`${base}/oauth/register`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ client_name: 'Bench', redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none' }),
});
const provider = oauthProvider();
const client = await provider.Client.find(((await registration.json()) as { client_id: string }).client_id);
// Tokens as the token endpoint stores them (the same model and adapter), for the bench's user.
const mint = () =>
  new provider.AccessToken({
    accountId: workspace.userId,
    client,
    aud: apiResource(),
    scope: 'read write',
    gty: 'authorization_code',
  } as never).save();
const seedStarted = performance.now();
for (let i = 0; i < stored; i += 100) await Promise.all(Array.from({ length: Math.min(100, stored - i) }, mint));
console.log(`seeded ${stored} stored access tokens in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
const tokens = await Promise.all(Array.from({ length: credentials }, mint));

const run = (path: string, pool: string[]) => loadWithKeys({ url: `${base}${path}`, keys: pool, connections, seconds });
console.log(formatFigures('floor: GET /healthz', await run('/healthz', [])));
console.log(formatFigures(`GET /api/user, ${credentials} API keys`, await run('/api/user', keys)));
console.log(formatFigures(`GET /api/user, ${credentials} access tokens`, await run('/api/user', tokens)));
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);

server.closeAllConnections();
server.close();
await disconnectDatabase();
await database.stop();
process.exit(0);
