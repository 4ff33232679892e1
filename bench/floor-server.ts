/**
 * The floor for bench/leads-list: a bare node:http server answering the
 * lead list's query with the raw mongodb driver (same filter, sort, page
 * and counts; no auth, validation, rate limit or mapping).
 */
import { createServer } from 'node:http';
import { MongoClient } from 'mongodb';

const client = await new MongoClient(process.env.MONGODB_URI!).connect();
const leads = client.db().collection('leads');
const workspaceId = process.env.BENCH_WORKSPACE_ID!;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const server = createServer(async (req, res) => {
  const url = new URL(req.url!, 'http://localhost');
  const filter: Record<string, unknown> = { workspaceId, archivedAt: null };
  const q = url.searchParams.get('q');
  if (q) filter.searchText = { $regex: escapeRegex(q.toLowerCase()) };
  const limit = Number(url.searchParams.get('limit') ?? 100);
  const [rows, total, workspaceTotal] = await Promise.all([
    leads.find(filter).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray(),
    leads.countDocuments(filter),
    leads.countDocuments({ workspaceId }),
  ]);
  const body = JSON.stringify({ leads: rows, total, workspaceTotal });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
