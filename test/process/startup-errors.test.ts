import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, lines, lockExists, startMain, tempDataDir } from './service.ts';

describe('a start that cannot serve', () => {
  it('says in one line that the port is busy, before the worker starts, and frees the database folder', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    const squatter = createServer().listen(port, '127.0.0.1');
    try {
      const service = startMain({ DATA_DIR: dataDir, PORT: String(port) });
      expect(await service.exited).toBe(1);
      expect(lines(service.stderr())).toEqual([expect.stringContaining(`port ${port}`)]);
      expect(service.stdout()).not.toContain('worker started');
      expect(lockExists(dataDir)).toBe(false);
    } finally {
      squatter.close();
    }
  }, 30_000);

  it('refuses PORT set but empty as a configuration error', async () => {
    const service = startMain({ DATA_DIR: tempDataDir(), PORT: '' });
    expect(await service.exited).toBe(2);
    expect(lines(service.stderr())).toEqual([expect.stringContaining('PORT')]);
    expect(service.stdout()).toBe('');
  }, 30_000);
});
