import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A chunked body's content (sizes are in bytes). */
function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; ;) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Splits what came back on a connection into its status, headers (names lower-cased) and body. */
function parseResponse(received: Buffer): RawResponse {
  const split = received.indexOf('\r\n\r\n');
  const head = received.subarray(0, split < 0 ? received.length : split).toString('latin1');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const body = split < 0 ? Buffer.alloc(0) : received.subarray(split + 4);
  const content = headers['transfer-encoding'] === 'chunked' ? dechunk(body) : body;
  return { status: Number(statusLine.split(' ')[1]), headers, body: content.toString('utf8') };
}

/**
 * Sends `pieces` to the server at `baseUrl` as written, one after another
 * spaced in time (so the server parses each as its own packet), stopping as
 * soon as an answer came, and reads everything until the server closes the
 * connection. fetch cannot send what Node refuses to parse, a length it does
 * not send, or a body that never ends, nor show whether the connection was
 * closed. A reset after the answer (the server closing on a client still
 * sending) is the end of the exchange, not an error.
 */
export async function rawExchange(baseUrl: string, pieces: Iterable<string | Buffer>): Promise<RawResponse> {
  const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
  const received: Buffer[] = [];
  const closed = new Promise<void>((done, fail) => {
    socket.on('data', (data) => received.push(data));
    socket.on('close', () => done());
    socket.on('error', (error) => (received.length ? done() : fail(error)));
  });
  await new Promise((connected) => socket.once('connect', connected));
  for (const piece of pieces) {
    if (received.length || socket.destroyed) break;
    socket.write(piece);
    await new Promise((r) => setTimeout(r, 20));
  }
  await closed;
  socket.destroy();
  return parseResponse(Buffer.concat(received));
}

/** `request` in `chunks` pieces of about equal length (see rawExchange). */
export function rawRequest(baseUrl: string, request: string, chunks = 1): Promise<RawResponse> {
  const size = Math.ceil(request.length / chunks);
  const pieces = Array.from({ length: chunks }, (_, i) => request.slice(i * size, (i + 1) * size)).filter(Boolean);
  return rawExchange(baseUrl, pieces);
}
