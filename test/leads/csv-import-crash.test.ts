import mongoose from 'mongoose';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { startService } from '../support/processes.ts';

// The API runs here without a worker; workers are processes of their own, the first killed mid-import.
const server = useApiServer();

const workerEnv = () => ({
  MONGODB_URI: server.databaseUri,
  SECRETS_KEY: testSecretsKey,
  // A dead worker's import is taken over after this long (its lock is renewed every third of it while it lives).
  IMPORT_LOCK_LIFETIME_MS: '2000',
  LOG_LEVEL: 'error',
  PORT: '0',
});
const startWorkerProcess = () => startService(process.execPath, ['src/main.ts', 'worker'], workerEnv(), null);

type Import = { status: string; total_rows: number; processed_rows: number; created: number; duplicates: number; rejected: number };

const importOf = async (key: string, id: string) =>
  (await server.request<{ import: Import }>('GET', `/api/leads/imports/${id}`, { key })).body.import;

async function until(key: string, id: string, done: (found: Import) => boolean, timeoutMs: number): Promise<Import> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(50)) {
    const found = await importOf(key, id);
    if (done(found) || Date.now() > deadline) return found;
  }
}

describe('a CSV import whose worker dies', () => {
  it('is taken over by another worker and finished: every row stored once, the counts adding up to the file', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace('pro');
    const rows = 8_000;
    const csv = [
      'email,full name,company',
      ...Array.from({ length: rows }, (_, n) => `p${n}@c${n % 300}.test,Person ${n},C ${n % 300}`),
    ].join('\n');
    const first = await startWorkerProcess();
    const res = await server.request('POST', '/api/leads/imports?name=Big', {
      key: apiKey,
      rawBody: csv,
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.status).toBe(202);
    const id = res.body.import.id as string;
    const midway = await until(apiKey, id, (found) => found.processed_rows >= 2_000, 60_000);
    expect(midway.status).toBe('running');
    first.kill();
    const cut = await importOf(apiKey, id);
    expect(cut.processed_rows).toBeLessThan(rows);

    const second = await startWorkerProcess();
    try {
      const done = await until(apiKey, id, (found) => ['completed', 'failed'].includes(found.status), 60_000);
      expect(done).toMatchObject({
        status: 'completed',
        total_rows: rows,
        processed_rows: rows,
        rejected: 0,
        created: rows,
        duplicates: 0,
      });
      const leads = mongoose.connection.db!.collection('leads');
      expect(await leads.countDocuments({ workspaceId })).toBe(rows);
      expect(await mongoose.connection.db!.collection('lead_activity').countDocuments({ workspaceId, type: 'lead.created' })).toBe(rows);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('counts a row repeating a row of an earlier batch as a duplicate, the worker living', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    // Batches are of 1,000 rows: row 1,201 repeats row 5's address.
    const lines = Array.from({ length: 1_500 }, (_, n) => `q${n === 1_200 ? 4 : n}@d.test,Person ${n}`);
    const worker = await startWorkerProcess();
    try {
      const res = await server.request('POST', '/api/leads/imports', {
        key: apiKey,
        rawBody: ['email,full name', ...lines].join('\n'),
        headers: { 'content-type': 'text/csv' },
      });
      expect(res.status).toBe(202);
      const done = await until(apiKey, res.body.import.id, (found) => ['completed', 'failed'].includes(found.status), 60_000);
      expect(done).toMatchObject({ status: 'completed', total_rows: 1_500, created: 1_499, duplicates: 1, rejected: 0 });
    } finally {
      await worker.stop();
    }
  }, 90_000);
});
