import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDatabaseUri } from '../support/database.ts';
import { run } from '../support/processes.ts';

const env = { MONGODB_URI: freshDatabaseUri() };
const cli = async (...args: string[]) => {
  const result = await run(process.execPath, ['src/cli/main.ts', ...args], env);
  return { ...result, json: result.code === 0 ? JSON.parse(result.stdout) : undefined };
};

/** The error a failed command prints: its last line on stderr (the first names the database it acted on). */
const lastJson = (stderr: string) => JSON.parse(stderr.trim().split('\n').at(-1)!);

describe('admin CLI', () => {
  it('creates a workspace, manages keys and credits, each command printing one JSON object', async () => {
    const created = await cli('workspace', 'create', '--name', 'Acme', '--plan', 'starter', '--email', 'owner@acme.test');
    expect(created.code).toBe(0);
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    // Its one line ended: what is written after it starts a line of its own.
    expect(created.stdout).toMatch(/^[^\n]+\n$/);
    expect(created.json).toEqual({
      workspaceId: expect.any(String),
      brandId: expect.any(String),
      userId: expect.any(String),
      apiKey: expect.stringMatching(/^lok_[0-9A-Za-z]{32,}$/),
    });
    const workspaceId = created.json.workspaceId;

    const key = await cli('keys', 'create', '--workspace', workspaceId, '--name', 'CRM sync', '--scopes', 'read,write');
    expect(key.json).toEqual({ id: expect.any(String), apiKey: expect.stringMatching(/^lok_/), scopes: ['read', 'write'], brandId: null });
    const bound = await cli(
      'keys',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'Brand key',
      '--scopes',
      'read',
      '--brand',
      created.json.brandId,
    );
    expect(bound.json).toMatchObject({ scopes: ['read'], brandId: created.json.brandId });

    const shown = await cli('workspace', 'show', '--id', workspaceId);
    expect(shown.json).toEqual({
      workspaceId,
      plan: 'starter',
      crawlCredits: 2000,
      agentCredits: 500,
      validationCredits: 2000,
      overage: false,
      leadLimit: 25000,
      timezone: 'UTC',
    });

    const updated = await cli(
      'workspace',
      'update',
      '--id',
      workspaceId,
      '--plan',
      'pro',
      '--crawl-credits',
      '7',
      '--overage',
      'on',
      '--timezone',
      'America/New_York',
    );
    expect(updated.json).toMatchObject({
      plan: 'pro',
      crawlCredits: 7,
      agentCredits: 500,
      overage: true,
      leadLimit: 100000,
      timezone: 'America/New_York',
    });

    const revoked = await cli('keys', 'revoke', '--id', key.json.id);
    expect(revoked.json).toEqual({ id: key.json.id, status: 'revoked' });
  }, 60_000);

  it('explains bad usage on stderr with a non-zero exit', async () => {
    const badPlan = await cli('workspace', 'create', '--name', 'X', '--plan', 'gold', '--email', 'x@x.test');
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain('--plan must be one of free, starter, pro, business');
    const created = await cli('workspace', 'create', '--name', 'Y', '--plan', 'free', '--email', 'y@y.test');
    const badZone = await cli('workspace', 'update', '--id', created.json.workspaceId, '--timezone', 'Mars/Olympus');
    expect(badZone.code).toBe(2);
    expect(badZone.stderr).toContain('--timezone must be an IANA time zone');
    const badScope = await cli('keys', 'create', '--workspace', created.json.workspaceId, '--name', 'n', '--scopes', 'read,admin');
    expect(badScope.code).toBe(1);
    expect(lastJson(badScope.stderr).error).toContain('scopes: unknown permission admin');
    const noWorkspace = await cli('keys', 'create', '--workspace', 'nope', '--name', 'n', '--scopes', 'read');
    expect(noWorkspace.code).toBe(1);
    expect(lastJson(noWorkspace.stderr)).toEqual({ error: 'Workspace not found' });
    const foreignBrand = await cli(
      'keys',
      'create',
      '--workspace',
      created.json.workspaceId,
      '--name',
      'n',
      '--scopes',
      'read',
      '--brand',
      '3f1c2b7a-6f0e-4a51-9d2c-8b7e6a5d4c3b',
    );
    expect(foreignBrand.code).toBe(1);
    expect(lastJson(foreignBrand.stderr)).toEqual({ error: 'brand: Brand not found' });
  }, 60_000);

  it('prints its usage for --help, with no error, and lists workspaces with id, name, plan and creation time', async () => {
    for (const args of [['--help'], ['-h'], ['help'], ['workspace', '--help']]) {
      const help = await run(process.execPath, ['src/cli/main.ts', ...args], env);
      expect({ code: help.code, stderr: help.stderr }, args.join(' ')).toEqual({ code: 0, stderr: '' });
      expect(help.stdout).toContain('cli workspace list');
      expect(help.stdout).toContain('cli keys create --workspace ID');
    }
    const none = await run(process.execPath, ['src/cli/main.ts'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('No command given');

    const first = await cli('workspace', 'create', '--name', 'First listed', '--plan', 'pro', '--email', 'first@list.test');
    const second = await cli('workspace', 'create', '--name', 'Second listed', '--plan', 'free', '--email', 'second@list.test');
    const listed = await cli('workspace', 'list');
    expect(listed.code).toBe(0);
    const ours = (listed.json as Array<{ workspaceId: string }>).filter((w) =>
      [first.json.workspaceId, second.json.workspaceId].includes(w.workspaceId),
    );
    expect(ours).toEqual([
      { workspaceId: first.json.workspaceId, name: 'First listed', plan: 'pro', createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      { workspaceId: second.json.workspaceId, name: 'Second listed', plan: 'free', createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
    // The database it acted on, first, without the URI's credentials or options.
    const { host, pathname } = new URL(env.MONGODB_URI);
    expect(listed.stderr.split('\n')[0]).toBe(`database ${host}${pathname} (MONGODB_URI)`);
  }, 60_000);

  it('names the data folder it uses, and refuses to read one that holds no database instead of making an empty one', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'leadops-cli-'));
    const embedded = (...args: string[]) => run(process.execPath, ['src/cli/main.ts', ...args], { DATA_DIR: folder });
    try {
      const show = await embedded('workspace', 'show', '--id', 'x');
      expect(show.code).toBe(1);
      const { error } = JSON.parse(show.stderr.trim().split('\n').at(-1)!);
      expect(error).toContain(`No database in ${folder} (DATA_DIR)`);
      expect(readdirSync(folder)).toEqual([]);

      const created = await embedded('workspace', 'create', '--name', 'Here', '--plan', 'free', '--email', 'here@x.test');
      expect(created.code).toBe(0);
      expect(created.stderr.split('\n')[0]).toBe(`embedded database in ${folder} (DATA_DIR)`);
      expect(existsSync(join(folder, 'leadops.sqlite'))).toBe(true);
      const shown = await embedded('workspace', 'show', '--id', JSON.parse(created.stdout).workspaceId);
      expect(JSON.parse(shown.stdout)).toMatchObject({ plan: 'free' });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
