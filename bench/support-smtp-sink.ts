/**
 * An SMTP server for bench/send.ts, in a process of its own so its work
 * does not share the bench's event loop: it listens on 127.0.0.1, accepts
 * any login and every recipient, reads each message to its end and drops
 * it. Forked with IPC: it sends `{ port }` once listening and answers
 * `'count'` with `{ count }`, the messages it accepted so far.
 */
import { SMTPServer } from 'smtp-server';

let accepted = 0;
const server = new SMTPServer({
  authOptional: false,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onAuth: (auth, _session, done) => done(null, { user: auth.username }),
  onData: (stream, _session, done) => {
    stream.resume();
    stream.on('end', () => {
      accepted++;
      done();
    });
  },
});

server.listen(0, '127.0.0.1', () => {
  const address = server.server.address();
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('message', (message) => {
  if (message === 'count') process.send!({ count: accepted });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
