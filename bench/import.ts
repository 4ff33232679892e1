/**
 * The CSV import (POST /api/leads/imports) with an API process and a worker process on one store, as deployed:
 *   - 100,000 CSV rows: from the upload to the import completed, in rows a second, beside a floor measured in the
 *     same run before and after it (support-floors.ts): the raw driver inserting the same leads as documents of the
 *     same shape into the same collection and indexes, `insertMany` of 500 (unordered), no parsing, no checks;
 *   - the API process's RSS growth while it takes a 50 MB file (sampled every 20 ms from /proc; the file is
 *     streamed to chunk documents, so it must stay under 100 MB). Its import is not waited for.
 *
 *   npm run bench:import                                   # embedded FerretDB in a temp dir
 *   MONGODB_URI=mongodb://… npm run bench:import
 *   BENCH_ROWS=5000 BENCH_BIG_MB=5 npm run bench:import    # smaller sizes
 *
 * Everything runs on 127.0.0.1.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { createWorkspace } from '../src/account/account.service.ts';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { freePort, startService } from '../test/support/processes.ts';
import { againstFloors } from './support-floors.ts';
import { statusMiB } from './support-process.ts';
import { benchStore, createKeys } from './support-store.ts';

const rowCount = Number(process.env.BENCH_ROWS ?? 100_000);
const bigMiB = Number(process.env.BENCH_BIG_MB ?? 50);
const rssLimitMiB = 100;
const store = benchStore('import');

const header = 'Email,First Name,Last Name,Company,Job Title,Website,City,Segment\n';
/** Row n of a file: a lead of its own, `tag` keeping files apart. */
const row = (tag: string, n: number) =>
  `${tag}${n}@company${n % 5000}.test,First${n},Last${n},Company ${n % 5000},Head of Growth,https://www.company${n % 5000}.test/,Berlin,s${n % 7}\n`;

/** A file of `rows` rows, produced a piece at a time. */
function csvStream(tag: string, rows: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let n = 0;
  return new ReadableStream({
    start: (controller) => controller.enqueue(encoder.encode(header)),
    pull(controller) {
      if (n >= rows) return controller.close();
      let text = '';
      for (const end = Math.min(rows, n + 1000); n < end; n++) text += row(tag, n);
      controller.enqueue(encoder.encode(text));
    },
  });
}

const rssMiB = (pid: number) => statusMiB(pid, 'VmRSS');
function sampleRss(pid: number) {
  let peak = rssMiB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 20);
  return () => (clearInterval(timer), Math.max(peak, rssMiB(pid)));
}

/** The floor: the same leads as plain documents, unordered insertMany of 500 into the leads collection. */
async function floor(workspaceId: string, tag: string): Promise<number> {
  const leads = mongoose.connection.db!.collection('leads');
  const started = performance.now();
  for (let offset = 0; offset < rowCount; offset += 500) {
    const at = new Date();
    const docs = Array.from({ length: Math.min(500, rowCount - offset) }, (_, i) => {
      const n = offset + i;
      const _id = randomUUID();
      const email = `${tag}${n}@company${n % 5000}.test`;
      return {
        _id: _id as never,
        workspaceId,
        brandId: 'floor',
        email,
        full_name: `First${n} Last${n}`,
        company: `Company ${n % 5000}`,
        title: 'Head of Growth',
        domain: `company${n % 5000}.test`,
        location: 'Berlin',
        custom: { segment: `s${n % 7}` },
        emailKey: `e:${email}`,
        linkedinKey: `~${_id}`,
        searchText: `company ${n % 5000}\nfirst${n} last${n}\n${email}\ncompany${n % 5000}.test`,
        status: 'new',
        score: null,
        email_status: null,
        archivedAt: null,
        createdAt: at,
        updatedAt: at,
      };
    });
    await leads.insertMany(docs, { ordered: false });
  }
  return (performance.now() - started) / 1000;
}

async function post(url: string, key: string, body: ReadableStream<Uint8Array>) {
  const response = await fetch(`${url}/api/leads/imports?name=bench`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
    body,
    duplex: 'half',
  } as RequestInit);
  const answer = (await response.json()) as { import?: { id: string }; error?: string };
  if (response.status !== 202) throw new Error(`import answered ${response.status}: ${answer.error}`);
  return answer.import!.id;
}

async function completed(url: string, key: string, id: string) {
  for (;;) {
    const response = await fetch(`${url}/api/leads/imports/${id}`, { headers: { authorization: `Bearer ${key}` } });
    const answer = (await response.json()) as {
      import?: { status: string; created: number; rejected: number; error: string | null };
      error?: string;
    };
    // Polled past the key's rate limit: wait as the answer says.
    if (response.status === 429) {
      await new Promise((done) => setTimeout(done, 1000 * Number(response.headers.get('retry-after') ?? 1)));
      continue;
    }
    if (!answer.import) throw new Error(`the import's read answered ${response.status}: ${answer.error}`);
    if (answer.import.status === 'completed') return answer.import;
    if (answer.import.status === 'failed') throw new Error(`import failed: ${answer.import.error}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

const database = await store.open();
await connectDatabase(database.uri);
const workspace = await createWorkspace({ name: 'Bench', plan: 'business', email: 'bench@example.test' });
const floorWorkspace = await createWorkspace({ name: 'Floor', plan: 'business', email: 'floor@example.test' });
const [key] = await createKeys(workspace.workspaceId, 1, 'import');
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const env = {
  MONGODB_URI: database.uri,
  SECRETS_KEY: randomBytes(32).toString('base64'),
  PORT: String(port),
  LOG_LEVEL: 'warn',
  IMPORT_MAX_BYTES: String((bigMiB + 10) * 1024 * 1024),
};
const api = await startService(process.execPath, ['src/main.ts', 'api'], env, `${url}/healthz`, 120_000);
const worker = await startService(process.execPath, ['src/main.ts', 'worker'], env, null);
try {
  // Warm-up: a small import loads the route's and the job's code.
  await completed(url, key!, await post(url, key!, csvStream('warm', 10)));

  const floorBefore = await floor(floorWorkspace.workspaceId, 'before');
  const started = performance.now();
  const done = await completed(url, key!, await post(url, key!, csvStream('row', rowCount)));
  const seconds = (performance.now() - started) / 1000;
  const floorAfter = await floor(floorWorkspace.workspaceId, 'after');
  if (done.created !== rowCount) throw new Error(`the import stored ${done.created} of ${rowCount} rows (${done.rejected} rejected)`);
  const floorRate = (2 * rowCount) / (floorBefore + floorAfter);
  console.log(`floor  driver insertMany of 500 (mean of 2)  ${Math.round(floorRate).toString().padStart(7)} rows/s`);
  console.log(
    `REST   POST /api/leads/imports to completed   ${Math.round(rowCount / seconds)
      .toString()
      .padStart(7)} rows/s  ${seconds.toFixed(1)} s  ${againstFloors(seconds, [floorBefore, floorAfter]).toFixed(2)}x floor`,
  );

  const bigRows = Math.ceil((bigMiB * 1024 * 1024) / row('big', 250_000).length);
  const before = rssMiB(api.pid!);
  const peak = sampleRss(api.pid!);
  const uploadStarted = performance.now();
  await post(url, key!, csvStream('big', bigRows));
  const growth = peak() - before;
  console.log(
    `REST   POST ${bigMiB} MB (${bigRows} rows) answered in ${((performance.now() - uploadStarted) / 1000).toFixed(1)} s  API RSS ${before.toFixed(0)} → peak ${(before + growth).toFixed(0)} MiB, growth ${growth.toFixed(1)} MiB (limit ${rssLimitMiB})`,
  );
  console.log(`\n${rowCount} rows, store: ${store.name}`);
  if (growth >= rssLimitMiB) throw new Error(`API RSS grew ${growth.toFixed(1)} MiB, over ${rssLimitMiB} MiB`);
} finally {
  await worker.stop();
  await api.stop();
  await disconnectDatabase();
  await database.stop();
  store.remove();
}
