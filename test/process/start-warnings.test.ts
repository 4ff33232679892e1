import { describe, expect, it } from 'vitest';
import { freePort, lines, startMain, tempDataDir, waitForHealthy } from './service.ts';

/** What `npm start` warns about once at start: settings left unset that some feature needs. */
describe('warnings at start', () => {
  it('warns once that SEARCH_URL is unset, and not when it is set', async () => {
    const port = await freePort();
    const unset = startMain({ DATA_DIR: tempDataDir(), PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
    await waitForHealthy(unset, port);
    const warnings = lines(unset.stderr()).filter((line) => line.includes('SEARCH_URL'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/agent runs/);
    unset.child.kill('SIGTERM');
    await unset.exited;

    const other = await freePort();
    const set = startMain({
      DATA_DIR: tempDataDir(),
      PORT: String(other),
      PUBLIC_BASE_URL: `http://127.0.0.1:${other}`,
      SEARCH_URL: 'http://127.0.0.1:9/',
    });
    await waitForHealthy(set, other);
    expect(lines(set.stderr())).toEqual([]);
  }, 90_000);
});
