/**
 * A mailbox reader of its own for replies-processes.test.ts: `node test/outreach/mailbox-process.ts` with
 * MONGODB_URI, SECRETS_KEY and OUTBOUND_ALLOWED_ADDRESSES set. It connects, prints `ready`, waits for a line
 * on stdin, reads every inbox's mailbox once, prints `done` and exits; logs on stderr.
 */
import { disconnectDatabase } from '../../src/db/connection.ts';
import { readMailboxes, stopReadingMailboxes } from '../../src/outreach/replies/read-mailboxes.ts';
import { connectAndWaitForGo } from '../support/child-worker.ts';

await connectAndWaitForGo();
await readMailboxes();
await stopReadingMailboxes(0);
console.log('done');
await disconnectDatabase();
