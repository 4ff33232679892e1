/**
 * The floor for bench/leads-list: a bare node:http server doing each
 * scenario's database work with the raw mongodb driver, and nothing else.
 *
 *   GET /?limit=100[&q=…][&status=…][&filter=…][&after=…][&sort=…]
 *                          the lead list: the same page query (one more
 *                          than the page, as the service reads) and the
 *                          same two counts (the filter's, the workspace's);
 *                          `filter` and `after` are the service's filter
 *                          parts in Extended JSON; no auth, validation,
 *                          rate limit or mapping.
 *   GET /capacity          the count of stored (not archived) leads.
 *   POST /import           500 leads in the body: the count the cap is checked
 *                          against, then one unordered insert of the leads.
 *   GET /user              what an authenticated GET /api/user does in the
 *                          database: the key by _id (sha256 hex of the bearer
 *                          key) in api_keys, its lastUsedAt write (fire and
 *                          forget, at most once a minute, as authenticate
 *                          does), the key's one-minute window counted in
 *                          rate_limit_windows (one $inc, 429 past the
 *                          limit), then the user by _id in users.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BSON, MongoClient } from 'mongodb';

const { EJSON } = BSON;

const client = await new MongoClient(process.env.MONGODB_URI!).connect();
const db = client.db();
const leads = db.collection<Record<string, unknown>>('leads');
const apiKeys = db.collection<{
  _id: string;
  keyId: string;
  userId: string;
  workspaceId: string;
  status: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  scopes: string[];
}>('api_keys');
const windows = db.collection<{ _id: string; start: number; count: number }>('rate_limit_windows');
const users = db.collection<{ _id: string; workspaceId: string; email: string; name: string; createdAt: Date }>('users');
const workspaceId = process.env.BENCH_WORKSPACE_ID!;
const limit = Number(process.env.RATE_LIMIT_PER_MINUTE ?? 60);
const windowMs = 60_000;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const send = (res: ServerResponse, status: number, payload: unknown) => {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

async function list(url: URL, res: ServerResponse) {
  const filter: Record<string, unknown> = { workspaceId, archivedAt: null };
  const q = url.searchParams.get('q');
  if (q) filter.searchText = { $regex: escapeRegex(q.toLowerCase()) };
  const status = url.searchParams.get('status');
  if (status) filter.status = status;
  // The list's other filters, as the service writes them (Extended JSON, for dates), a keyset `after` and its order.
  const more = url.searchParams.get('filter');
  if (more) Object.assign(filter, EJSON.parse(more, { relaxed: false }));
  const after = url.searchParams.get('after');
  const sort = JSON.parse(url.searchParams.get('sort') ?? '{"createdAt":-1,"_id":-1}') as Record<string, 1 | -1>;
  const pageSize = Number(url.searchParams.get('limit') ?? 100);
  const page = after ? { ...filter, ...EJSON.parse(after, { relaxed: false }) } : filter;
  const [rows, total, workspaceTotal] = await Promise.all([
    leads
      .find(page)
      .sort(sort)
      .limit(pageSize + 1)
      .toArray(),
    leads.countDocuments(filter),
    leads.countDocuments({ workspaceId }),
  ]);
  send(res, 200, { leads: rows, total, workspaceTotal });
}

async function capacity(res: ServerResponse) {
  send(res, 200, { used: await leads.countDocuments({ workspaceId, archivedAt: null }) });
}

async function importLeads(body: string, res: ServerResponse) {
  const now = new Date();
  const docs = (JSON.parse(body) as { leads: Array<Record<string, unknown>> }).leads.map((lead) => ({
    _id: randomUUID(),
    workspaceId,
    ...lead,
    emailKey: `e:${String(lead.email).toLowerCase()}`,
    linkedinKey: `~${randomUUID()}`,
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
  }));
  await leads.countDocuments({ workspaceId, archivedAt: null });
  await leads.insertMany(docs as never[], { ordered: false });
  send(res, 201, { created: docs.length });
}

/** Counts one request in the key's one-minute window, opening one when none is open; false past the limit (as consumeRateLimit). */
async function admit(keyId: string, now: number): Promise<boolean> {
  const cutoff = now - windowMs;
  for (let turn = 0; turn < 3; turn++) {
    const counted = await windows.findOneAndUpdate(
      { _id: keyId, start: { $gt: cutoff } },
      { $inc: { count: 1 } },
      { returnDocument: 'after' },
    );
    if (counted) return counted.count <= limit;
    try {
      await windows.replaceOne({ _id: keyId, start: { $not: { $gt: cutoff } } }, { start: now, count: 1 }, { upsert: true });
      return true;
    } catch (error) {
      // Another request opened the window first: counted in it, next turn.
      if ((error as { code?: number }).code !== 11000) throw error;
    }
  }
  throw new Error(`the window of ${keyId} kept changing`);
}

async function user(authorization: string | undefined, res: ServerResponse) {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  const key = token ? await apiKeys.findOne({ _id: createHash('sha256').update(token).digest('hex') }) : null;
  const now = Date.now();
  if (!key || key.status !== 'active' || (key.expiresAt && key.expiresAt.getTime() <= now))
    return send(res, 401, { error: 'unauthorized' });
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() > 60_000) {
    void apiKeys.updateOne({ _id: key._id }, { $set: { lastUsedAt: new Date(now) } }).catch(() => undefined);
  }
  // The window is keyed by the credential, as rateLimitKey() names it.
  if (!(await admit(`api_key:${key.keyId}`, now))) return send(res, 429, { error: 'rate_limited' });
  const found = await users.findOne({ _id: key.userId });
  if (!found || found.workspaceId !== key.workspaceId) return send(res, 404, { error: 'not_found' });
  send(res, 200, {
    success: true,
    data: {
      userId: found._id,
      email: found.email,
      name: found.name,
      apiKey: { id: key.keyId, scopes: key.scopes, status: key.status, rateLimit: limit },
      createdAt: found.createdAt.toISOString(),
    },
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

const server = createServer((req, res) => {
  const url = new URL(req.url!, 'http://localhost');
  const route: Record<string, () => Promise<void>> = {
    '/user': () => user(req.headers.authorization, res),
    '/capacity': () => capacity(res),
    '/import': async () => importLeads(await readBody(req), res),
  };
  const handled = (route[url.pathname] ?? (() => list(url, res)))();
  handled.catch((error: unknown) => {
    console.error(error);
    if (!res.headersSent) send(res, 500, { error: 'internal' });
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
