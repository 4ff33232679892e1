/**
 * The floor for bench/leads-list: a bare node:http server doing the lead
 * list's database work with the raw mongodb driver (the same page query,
 * the same counter read, and the same count when filtered), with no auth,
 * validation, rate limit or mapping.
 */
import { createServer } from 'node:http';
import { MongoClient } from 'mongodb';

const client = await new MongoClient(process.env.MONGODB_URI!).connect();
const leads = client.db().collection('leads');
const counters = client.db().collection<{ _id: string; stored: number; total: number }>('lead_quotas');
const workspaceId = process.env.BENCH_WORKSPACE_ID!;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const server = createServer(async (req, res) => {
  const url = new URL(req.url!, 'http://localhost');
  const filter: Record<string, unknown> = { workspaceId, archivedAt: null };
  const q = url.searchParams.get('q');
  if (q) filter.searchText = { $regex: escapeRegex(q.toLowerCase()) };
  const limit = Number(url.searchParams.get('limit') ?? 100);
  const [rows, counts, filtered] = await Promise.all([
    leads.find(filter).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray(),
    counters.findOne({ _id: workspaceId }),
    q ? leads.countDocuments(filter) : undefined,
  ]);
  const body = JSON.stringify({ leads: rows, total: filtered ?? counts?.stored, workspaceTotal: counts?.total });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
