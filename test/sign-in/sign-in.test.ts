import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { signIn } from '../../src/sign-in/sign-in.service.ts';
import { useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { run } from '../support/processes.ts';

const server = useApiServer();
const clock = useTestClock();

const cli = (stdin: string, ...args: string[]) =>
  run(process.execPath, ['src/cli/main.ts', ...args], { MONGODB_URI: server.databaseUri }, { stdin });

async function userWithPassword(email: string, password = 'a long enough password') {
  const created = JSON.parse((await cli('', 'workspace', 'create', '--name', 'Sign-in', '--plan', 'free', '--email', email)).stdout);
  const set = await cli(`${password}\n`, 'users', 'set-password', '--email', email);
  expect(set.code, set.stderr).toBe(0);
  return created as { workspaceId: string; userId: string };
}

describe('sign-in passwords', () => {
  it('are set with the CLI from standard input and stored only as a scrypt hash', async () => {
    const { userId } = await userWithPassword('Ada@Example.test', 'correct horse battery staple');
    const stored = await mongoose.connection.db!.collection('user_passwords').findOne({ _id: 'ada@example.test' as never });
    expect(stored).toMatchObject({ userId, hash: expect.stringMatching(/^scrypt\$65536\$8\$1\$[\w-]{22}\$[\w-]{43}$/) });
    expect(JSON.stringify(stored)).not.toContain('horse');

    expect(await signIn('ada@example.test', 'correct horse battery staple', '127.0.0.1')).toEqual({ ok: true, userId });
    expect(await signIn('ADA@example.test', 'correct horse battery staple', '127.0.0.1')).toEqual({ ok: true, userId });
    expect(await signIn('ada@example.test', 'correct horse battery stapler', '127.0.0.1')).toEqual({ ok: false, reason: 'wrong' });
    expect(await signIn('nobody@example.test', 'correct horse battery staple', '127.0.0.1')).toEqual({ ok: false, reason: 'wrong' });

    const short = await cli('short\n', 'users', 'set-password', '--email', 'ada@example.test');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('at least 12 characters');
    const empty = await cli('', 'users', 'set-password', '--email', 'ada@example.test');
    expect(empty.code).toBe(2);
    const unknown = await cli('a long enough password\n', 'users', 'set-password', '--email', 'nobody@example.test');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No user with the email');
  });

  it('asks which workspace when the email belongs to several', async () => {
    const first = await userWithPassword('shared@example.test');
    await cli('', 'workspace', 'create', '--name', 'Second', '--plan', 'free', '--email', 'shared@example.test');
    const ambiguous = await cli('another long password\n', 'users', 'set-password', '--email', 'shared@example.test');
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('--workspace');
    const chosen = await cli(
      'another long password\n',
      'users',
      'set-password',
      '--email',
      'shared@example.test',
      '--workspace',
      first.workspaceId,
    );
    expect(JSON.parse(chosen.stdout)).toMatchObject({ userId: first.userId, workspaceId: first.workspaceId });
  });

  it('slows down repeated failures per account and per address, refusing even the right password until the wait is over', async () => {
    const { userId } = await userWithPassword('grace@example.test', 'the right password!');
    // Only the test moves time: five scrypt checks on a loaded machine can outlast the one-second wait itself.
    clock.freeze();
    for (let i = 0; i < 5; i++)
      expect(await signIn('grace@example.test', `wrong ${i}`, '10.9.9.1')).toEqual({ ok: false, reason: 'wrong' });
    // The account waits, whatever address it is tried from.
    expect(await signIn('grace@example.test', 'the right password!', '10.9.9.2')).toEqual({
      ok: false,
      reason: 'wait',
      retryAfterSeconds: 1,
    });
    clock.advance(1_100);
    expect(await signIn('grace@example.test', 'the right password!', '10.9.9.2')).toEqual({ ok: true, userId });

    // An address trying many accounts waits too, and each failure doubles the wait.
    for (let i = 0; i < 5; i++) await signIn(`someone${i}@example.test`, 'guess', '10.9.9.3');
    expect(await signIn('grace@example.test', 'the right password!', '10.9.9.3')).toMatchObject({ ok: false, reason: 'wait' });
    clock.advance(1_100);
    expect(await signIn('nobody@example.test', 'guess', '10.9.9.3')).toEqual({ ok: false, reason: 'wrong' });
    expect(await signIn('grace@example.test', 'the right password!', '10.9.9.3')).toEqual({
      ok: false,
      reason: 'wait',
      retryAfterSeconds: 2,
    });
    // A quiet quarter hour forgets them.
    clock.advance(15 * 60_000 + 1_000);
    expect(await signIn('grace@example.test', 'the right password!', '10.9.9.3')).toEqual({ ok: true, userId });
  });
});
