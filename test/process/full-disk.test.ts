import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startMain, waitFor, waitForHealthy } from './service.ts';

/** A 64 MB tmpfs of the test's own; mounting needs root (CI runs as root): elsewhere the test is skipped, saying why. */
function mountSmallDisk(): { dir: string } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), 'leadops-full-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status === 0) return { dir };
  rmSync(dir, { recursive: true, force: true });
  return {
    skip: `cannot mount a tmpfs (${(mounted.stderr || mounted.error?.message || 'mount failed').trim()}): run as root to test a full disk`,
  };
}

const disk = mountSmallDisk();
if ('skip' in disk) console.warn(`full-disk test skipped: ${disk.skip}`);

afterAll(() => {
  if ('skip' in disk) return;
  spawnSync('umount', ['-l', disk.dir]);
  rmSync(disk.dir, { recursive: true, force: true });
});

/** Fills the disk under `dir` up to its last `leaveBytes` with a file named `name`, and answers how to free it again. */
function fill(dir: string, name: string, leaveBytes: number): () => void {
  const file = join(dir, name);
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) {
      const free = Number(spawnSync('df', ['--output=avail', '-B1', dir], { encoding: 'utf8' }).stdout.split('\n')[1]);
      if (free <= leaveBytes) break;
      writeSync(fd, chunk, 0, Math.min(chunk.length, free - leaveBytes));
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return () => unlinkSync(file);
}

const leadsOf = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, n) => ({
    email: `${prefix}${n}@full.test`,
    company: `Full ${'disk '.repeat(100)}`,
    full_name: `Person ${n}`,
  }));

describe.skipIf('skip' in disk)('a service whose DATA_DIR fills up', () => {
  it('answers writes 507 storage_full, serves reads, says so on /healthz, stores an import whole or says what it stored, and writes again once space is freed', async () => {
    const dataDir = join((disk as { dir: string }).dir, 'data');
    const port = await freePort();
    const service = startMain({ DATA_DIR: dataDir, PORT: String(port) });
    await waitForHealthy(service, port);
    const base = `http://127.0.0.1:${port}`;
    const cli = spawnSync(
      process.execPath,
      ['src/cli/main.ts', 'workspace', 'create', '--name', 'Full', '--plan', 'pro', '--email', 'f@full.test'],
      {
        env: { ...process.env, DATA_DIR: dataDir },
        encoding: 'utf8',
      },
    );
    expect(cli.status, cli.stderr).toBe(0);
    const { apiKey } = JSON.parse(cli.stdout) as { apiKey: string };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const health = () =>
      fetch(`${base}/healthz`).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));

    /**
     * An import the disk refuses: 507 storage_full, saying that nothing was stored (refused before it began: its
     * rate-limit record could not be written) or what was, which is exactly what is stored of it.
     */
    const refusedImport = async (batch: ReturnType<typeof leadsOf>, prefix: string) => {
      const refused = await call('POST', '/api/leads', { leads: batch });
      expect(refused).toMatchObject({ status: 507, body: { code: 'storage_full', error: expect.stringContaining('DATA_DIR') } });
      expect(refused.body.error).not.toContain(dataDir);
      const stored = (refused.body.stored ?? []) as Array<{ index: number; id: string }>;
      expect(refused.body.error).toContain(
        refused.body.stored ? `${stored.length} of ${batch.length} leads were stored` : "nothing of this call's change was stored",
      );
      const listed = await call('GET', `/api/leads?q=${prefix}&limit=500`);
      expect(listed.status).toBe(200);
      expect(listed.body.leads.map((lead: { id: string }) => lead.id).sort()).toEqual(stored.map(({ id }) => id).sort());
      for (const { index, id } of stored)
        expect(listed.body.leads.find((lead: { id: string }) => lead.id === id).email).toBe(batch[index]!.email);
      return stored;
    };

    const first = await call('POST', '/api/leads', { leads: leadsOf(20, 'before-') });
    expect(first.status).toBe(201);

    // Room for a part of the next import, not all of it: about 200 of its leads are stored, and it says which.
    const freeSome = fill(dataDir, 'filler-1', 256 * 1024);
    const partly = leadsOf(500, 'partly-');
    const storedPartly = await refusedImport(partly, 'partly-');
    expect(storedPartly.length).toBeGreaterThan(0);
    expect(await health()).toMatchObject({ status: 200, body: { ok: false, storage: 'full', error: expect.stringContaining('DATA_DIR') } });

    // Full to the last byte. SQLite may still fit a small write in the file space it holds, so a write is either
    // stored or refused as storage_full, never a 500; an import does not fit, and reads are all served.
    const freeRest = fill(dataDir, 'filler-2', 0);
    const refused = leadsOf(500, 'refused-');
    const storedRefused = await refusedImport(refused, 'refused-');
    for (const [method, path, body] of [
      ['PATCH', '/api/leads', { ids: [first.body.leads[0].id], status: 'qualified' }],
      ['POST', '/api/scrapers', { name: 'Full', engine: 'http', extract: { items: 'li', fields: { t: { selector: 'b' } } } }],
    ] as const) {
      const answer = await call(method, path, body);
      if (answer.status !== 507) expect(answer.status, `${method} ${path}`).toBeLessThan(300);
      else expect(answer.body.code).toBe('storage_full');
    }
    expect(await call('GET', '/api/leads?q=before-')).toMatchObject({ status: 200, body: { total: 20 } });
    expect((await call('GET', '/api/leads/capacity')).status).toBe(200);
    expect((await call('GET', '/api/user')).status).toBe(200);
    expect(await health()).toMatchObject({ status: 200, body: { ok: false, storage: 'full' } });

    // Space freed: the same process writes again, /healthz says so once writes have stopped failing, and each
    // refused import sent again stores the rest, counting what it had stored as duplicates.
    freeSome();
    freeRest();
    for (const [batch, stored] of [
      [partly, storedPartly],
      [refused, storedRefused],
    ] as const) {
      const again = await call('POST', '/api/leads', { leads: batch });
      expect(again).toMatchObject({ status: 201, body: { created: 500 - stored.length, duplicates: stored.length } });
    }
    expect((await call('GET', '/api/leads?q=refused-&limit=1')).body.total).toBe(500);
    // Once no write has failed for 30 s (SQLite may fit a small write while larger ones fail).
    await waitFor('/healthz to report the disk writable again', async () => (await health()).body.ok === true, 60_000);
    expect(service.child.exitCode).toBe(null);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }, 180_000);
});
