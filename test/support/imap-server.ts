import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll } from 'vitest';
import { freePort, portIsOpen } from './processes.ts';

export interface TestImapServer {
  host: string;
  port: number;
  /** Puts a raw RFC 5322 message into a user's mailbox with IMAP APPEND (as delivered mail arrives there). */
  append(user: string, raw: string, mailbox?: string): Promise<void>;
  /** Creates a mailbox (folder) for a user. */
  createMailbox(user: string, mailbox: string): Promise<void>;
}

/** The account Dovecot's own processes run as (root runs them as the Debian package's users), and who owns the mail. */
function accounts() {
  if (process.getuid?.() !== 0) {
    const user = spawnSync('id', ['-un'], { encoding: 'utf8' }).stdout.trim();
    return { login: user, internal: user, uid: process.getuid!(), gid: process.getgid!() };
  }
  const id = (flag: string) => Number(spawnSync('id', [flag, 'dovecot'], { encoding: 'utf8' }).stdout.trim());
  return { login: 'dovenull', internal: 'dovecot', uid: id('-u'), gid: id('-g') };
}

/**
 * A real IMAP server for one test file: Dovecot (the Debian package
 * `dovecot-imapd`) on 127.0.0.1, plain-text logins without TLS, users from
 * a passwd file, a Maildir per user in a temp folder.
 */
export function useImapServer(users: Record<string, string>): TestImapServer {
  const state = { host: '127.0.0.1', port: 0 } as TestImapServer;
  let dovecot: ChildProcess | undefined;
  let dir = '';

  const client = (user: string) =>
    new ImapFlow({
      host: state.host,
      port: state.port,
      secure: false,
      auth: { user, pass: users[user]! },
      logger: false,
      disableAutoIdle: true,
    });

  state.append = async (user, raw, mailbox = 'INBOX') => {
    const imap = client(user);
    await imap.connect();
    try {
      await imap.append(mailbox, raw);
    } finally {
      await imap.logout();
    }
  };
  state.createMailbox = async (user, mailbox) => {
    const imap = client(user);
    await imap.connect();
    try {
      await imap.mailboxCreate(mailbox);
    } finally {
      await imap.logout();
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leadops-imap-'));
    chmodSync(dir, 0o755); // Dovecot's auth and mail processes, another account under root, read below it
    state.port = await freePort();
    const { login, internal, uid, gid } = accounts();
    mkdirSync(join(dir, 'mail'));
    chownSync(join(dir, 'mail'), uid, gid);
    writeFileSync(
      join(dir, 'passwd'),
      Object.entries(users)
        .map(([user, password]) => `${user}:{PLAIN}${password}::::::\n`)
        .join(''),
    );
    writeFileSync(
      join(dir, 'dovecot.conf'),
      `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
default_login_user = ${login}
default_internal_user = ${internal}
first_valid_uid = ${uid}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${uid} gid=${gid} home=${dir}/mail/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${state.port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
`,
    );
    dovecot = spawn('dovecot', ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    dovecot.stderr!.on('data', (chunk) => (stderr += chunk));
    const deadline = Date.now() + 15_000;
    while (!(await portIsOpen(state.port))) {
      const log = () => `${stderr}${readLog(dir)}`;
      if (dovecot.exitCode !== null) throw new Error(`Dovecot exited ${dovecot.exitCode}: ${log()}`);
      if (Date.now() > deadline) throw new Error(`Dovecot did not listen on 127.0.0.1:${state.port}: ${log()}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  });

  afterAll(async () => {
    if (dovecot && dovecot.exitCode === null) {
      const exited = new Promise((done) => dovecot!.once('exit', done));
      dovecot.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  return state;
}

const readLog = (dir: string) => {
  try {
    return readFileSync(join(dir, 'dovecot.log'), 'utf8');
  } catch {
    return '';
  }
};
