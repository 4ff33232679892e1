/**
 * A mailbox reader of its own for replies-processes.test.ts: `node test/outreach/mailbox-process.ts` with
 * MONGODB_URI, SECRETS_KEY and OUTBOUND_ALLOWED_ADDRESSES set. It connects, prints `ready`, waits for a line
 * on stdin, reads every inbox's mailbox once, prints `done` and exits; logs on stderr.
 */
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config.ts';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { logToStderr, setLogLevel } from '../../src/logger.ts';
import { readMailboxes } from '../../src/outreach/replies/read-mailboxes.ts';

const config = loadConfig();
logToStderr();
setLogLevel('warn');
await connectDatabase(config.MONGODB_URI!);
console.log('ready');
const stdin = createInterface({ input: process.stdin });
await new Promise((go) => stdin.once('line', go));
stdin.close();
await readMailboxes();
console.log('done');
await disconnectDatabase();
