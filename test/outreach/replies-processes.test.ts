import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { readMailboxes } from '../../src/outreach/replies/read-mailboxes.ts';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { useImapServer } from '../support/imap-server.ts';
import { createInbox, outreachEnv } from '../support/outreach.ts';
import { projectRoot } from '../support/processes.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

/** Reading a mailbox survives a reader killed mid-read: every message stored once, none lost. */
const server = useApiServer(outreachEnv);
const smtp = useSmtpServer({ sender: 'secret' });
const imap = useImapServer({ ada: 'secret' });

const replies = () => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>('outreach_replies');

describe('a mailbox reader killed while ingesting', () => {
  it('leaves nothing taken twice and nothing lost: the next read stores the rest', async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const inbox = await createInbox(server, key, smtp, {
      imap: { host: imap.host, port: imap.port, secure: false, user: 'ada', password: 'secret' },
    });
    const count = 150;
    for (let n = 0; n < count; n++) {
      await imap.append(
        'ada',
        [
          `From: lead${n}@x.test`,
          'To: ada@acme.test',
          `Subject: Reply ${n}`,
          `Message-ID: <reply-${n}@x.test>`,
          '',
          `Answer number ${n}.`,
          '',
        ].join('\r\n'),
      );
    }

    const env = { ...process.env, MONGODB_URI: server.databaseUri, SECRETS_KEY: testSecretsKey, ...outreachEnv };
    const child = spawn(process.execPath, ['test/outreach/mailbox-process.ts'], { cwd: projectRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal!)));
    const deadline = Date.now() + 30_000;
    while (!stdout.startsWith('ready')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the reader did not start: ${stderr}`);
      await sleep(20);
    }
    child.stdin.write('go\n');
    // Killed once it has stored some but (most likely) not all of them.
    while ((await replies().countDocuments({ inboxId: inbox.id })) < 20) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the reader stopped early: ${stdout} ${stderr}`);
      await sleep(5);
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const before = await replies().countDocuments({ inboxId: inbox.id });
    expect(before).toBeLessThan(count);

    const report = (await readMailboxes())[inbox.id]!;
    // What the killed reader stored past its cursor is found again, not stored twice.
    expect(report.stored + before).toBe(count);
    expect(report.alreadyStored).toBeLessThanOrEqual(1);
    const stored = await replies().find({ inboxId: inbox.id }).toArray();
    expect(stored).toHaveLength(count);
    expect(new Set(stored.map((reply) => reply.messageId)).size).toBe(count);
    expect(stored.every((reply) => reply.effectsAppliedAt instanceof Date)).toBe(true);
  }, 90_000);
});
