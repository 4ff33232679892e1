import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorStatus, type ErrorCode } from '../../../schema/error-codes.ts';
import { log, runWithRequestId } from '../../logger.ts';
import { requestIdHeader } from './request-id.ts';
import { recordUnparsedRequest } from './request-log.ts';

/** What Node attaches to a parse error it reports as 'clientError'. */
interface ClientError extends Error {
  code?: string;
  bytesParsed?: number;
  rawPacket?: Buffer;
}

const lineFeed = 0x0a;
/** A packet that starts a request: a method token, a space, then a target ("/…", "http://…" or "*"). */
const requestLineStart = /^[A-Z]+ (?:\/|[a-z][a-z0-9+.-]*:\/\/|\*)/i;
/** What a request target never holds, but header lines usually do (`; `, `, `). */
const whitespace = /[ \t]/;

/**
 * Whether a header overflow (Node counts the URL and the header lines against
 * one limit) happened while the parser was still in the request line, which
 * makes it a 414 rather than a 431. Node stops where the span crossing the
 * limit ends, or at the end of the packet if the span goes on; `rawPacket` is
 * only the packet being parsed then (`bytesParsed` into it), so:
 * - a line feed before that point: the request line had ended, headers overflowed;
 * - a packet that starts the request, with no line feed before that point: the URL did;
 * - a later packet (a long request arriving in pieces) with a space or tab before
 *   that point: a header line, as a URL holds no whitespace;
 * - otherwise no line end was seen and the bytes could be a URL: the request line.
 *   Only a header value of URL-like characters that overflows in a later packet
 *   is answered 414 where 431 was due: its packet looks the same as a URL's.
 */
function overflowedInRequestLine(error: ClientError): boolean {
  const packet = error.rawPacket;
  if (!packet?.length) return false;
  const stop = Math.min(Math.max(error.bytesParsed ?? packet.length, 0), packet.length);
  const parsed = packet.subarray(0, stop);
  if (parsed.includes(lineFeed)) return false;
  if (requestLineStart.test(packet.subarray(0, 64).toString('latin1'))) return true;
  return !whitespace.test(parsed.toString('latin1'));
}

/** The status and error code a client error is answered with, or null to answer as Node does. */
function answerFor(error: ClientError): { code: ErrorCode; message: string } | null {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return overflowedInRequestLine(error)
        ? { code: 'uri_too_long', message: 'The request URL is too long' }
        : { code: 'headers_too_large', message: 'The request headers are too large' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', message: 'The chunk extensions of the request body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // 408 has no code in the API's table; Node's bare answer says it.
      return null;
    default:
      return { code: 'validation_failed', message: `Malformed HTTP request: ${error.message}` };
  }
}

/** How long a client may take to close the connection after the error response. */
const closeGraceMs = 5_000;

const nodeRequestTimeout = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/**
 * The server's 'clientError' listener: a request Node could not parse (too
 * long a URL or headers, a malformed request line) gets the API's JSON error
 * body, with Content-Length and Connection: close, instead of Node's bare
 * status line, and the connection is closed.
 */
export function answerClientError(error: ClientError, socket: Duplex) {
  // Like Node's default: never write into a response already under way, nor to a dead socket.
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const answer = answerFor(error);
  runWithRequestId(requestId, () => log.debug('unparsable request', { code: error.code, reason: error.message }));
  socket.end(responseFor(answer, requestId));
  recordUnparsedRequest(requestId, answer ? errorStatus[answer.code] : 408);
  // end() only half-closes (the HTTP server allows half-open sockets): drop a client that keeps it open.
  if (socket instanceof Socket) socket.setTimeout(closeGraceMs, () => socket.destroy());
}

/** A complete HTTP/1.1 response, written by hand as no ServerResponse exists for an unparsed request. */
function responseFor(answer: { code: ErrorCode; message: string } | null, requestId: string): string {
  if (!answer) return nodeRequestTimeout;
  const status = errorStatus[answer.code];
  const body = JSON.stringify({ error: answer.message, code: answer.code });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `${requestIdHeader}: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}
