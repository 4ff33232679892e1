/**
 * A sending worker of its own for sending-processes.test.ts: `node test/outreach/engine-process.ts`
 * with MONGODB_URI, SECRETS_KEY and OUTBOUND_ALLOWED_ADDRESSES set. It connects, prints `ready`, waits
 * for a line on stdin (so two of them start passing together), then runs sending passes until a pass
 * finds nothing sent or under way elsewhere. On stdout, one JSON line per pass (`{"report": ...}`) and
 * per message the SMTP server accepted from this process (`{"accepted": "<Message-ID>"}`); logs on stderr.
 */
import nodemailer from 'nodemailer';
import { disconnectDatabase } from '../../src/db/connection.ts';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { connectAndWaitForGo } from '../support/child-worker.ts';

// The engine's transports, wrapped so the test can tell which process handed each message to the SMTP server
// (a pass's `sent` also counts steps it found sent already, by the other process).
const createTransport = nodemailer.createTransport;
nodemailer.createTransport = ((...args: Parameters<typeof createTransport>) => {
  const transport = createTransport(...args);
  const sendMail = transport.sendMail.bind(transport) as (mail: unknown) => Promise<{ messageId: string }>;
  Object.assign(transport, {
    sendMail: async (mail: unknown) => {
      const info = await sendMail(mail);
      console.log(JSON.stringify({ accepted: info.messageId }));
      return info;
    },
  });
  return transport;
}) as typeof createTransport;

await connectAndWaitForGo();

for (let pass = 0; pass < 50; pass++) {
  const report = await runOutreachPass();
  console.log(JSON.stringify({ report }));
  if (!report.sent && !report.claimed_elsewhere && !report.deferred) break;
}
closeTransports();
await disconnectDatabase();
