import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { secretsKey } from '../../src/secrets/secrets-key.ts';
import { run } from '../support/processes.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'leadops-secrets-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Runs the service with exactly `env` (plus PATH): no SECRETS_KEY leaks in from the test's own environment. */
const runMain = (env: Record<string, string>) => run(process.execPath, ['src/main.ts', 'api'], env, { inherit: false });

describe('the secrets key', () => {
  it('is made once in DATA_DIR on the embedded default (mode 0600), then read again', () => {
    const dataDir = join(tempDir(), 'data'); // not there yet: the key file makes it
    const first = secretsKey(loadConfig({ DATA_DIR: dataDir }));
    const file = join(dataDir, 'secrets.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first)).toBe(true);
    expect(first).toHaveLength(32);
    // A later start (a new configuration) reads the same key instead of making another.
    expect(secretsKey(loadConfig({ DATA_DIR: dataDir })).equals(first)).toBe(true);
  });

  it('prefers SECRETS_KEY over the file, and refuses a malformed one naming the variable', () => {
    const key = Buffer.alloc(32, 3).toString('base64');
    expect(secretsKey(loadConfig({ DATA_DIR: tempDir(), SECRETS_KEY: key })).toString('base64')).toBe(key);
    expect(() => secretsKey(loadConfig({ SECRETS_KEY: Buffer.alloc(16).toString('base64'), MONGODB_URI: 'mongodb://x' }))).toThrow(
      'Invalid environment variable SECRETS_KEY: must be 32 bytes in base64 (it decodes to 16 bytes)',
    );
    expect(() => secretsKey(loadConfig({ SECRETS_KEY: 'not base64 at all!', MONGODB_URI: 'mongodb://x' }))).toThrow(/is not base64/);
  });

  it('refuses a damaged key file instead of replacing it', () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'secrets.key'), 'short\n');
    expect(() => secretsKey(loadConfig({ DATA_DIR: dataDir }))).toThrow(/secrets\.key must be 32 bytes/);
    expect(readFileSync(join(dataDir, 'secrets.key'), 'utf8')).toBe('short\n');
  });

  it('stops a service with MONGODB_URI and no SECRETS_KEY, in one line saying what to set', async () => {
    const { code, stdout, stderr } = await runMain({ MONGODB_URI: 'mongodb://127.0.0.1:9/never-reached', PORT: '0' });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('SECRETS_KEY is required with MONGODB_URI: set it to 32 random bytes in base64, e.g. `openssl rand -base64 32`\n');
  });

  it('stops a service whose SECRETS_KEY is the wrong length, in one line', async () => {
    const { code, stderr } = await runMain({
      MONGODB_URI: 'mongodb://127.0.0.1:9/never-reached',
      PORT: '0',
      SECRETS_KEY: Buffer.alloc(31).toString('base64'),
    });
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringContaining('SECRETS_KEY: must be 32 bytes in base64 (it decodes to 31 bytes)'),
    ]);
  });
});
