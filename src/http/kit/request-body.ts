import type { IncomingMessage } from 'node:http';
import getRawBody, { type RawBodyError } from 'raw-body';
import { AppError } from '../../errors/app-error.ts';

/**
 * The one reader of request bodies, for every surface (REST, GraphQL, tRPC,
 * MCP and the domains' forms), so a body gets the same answer wherever it is
 * sent: over `maxBytes` it is 413 before a byte is read when its length is
 * declared, and once that many bytes came when it is chunked (the rest is left
 * unread: toErrorResponse's headers close the connection); a declared
 * length the body does not match, or a client that goes away mid-body, is 400.
 */
async function readBodyBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  try {
    return await getRawBody(req, { limit: maxBytes, length: req.headers['content-length'] });
  } catch (error) {
    const { type } = error as RawBodyError;
    if (type === 'entity.too.large') throw new AppError('payload_too_large', `Request body exceeds ${maxBytes} bytes`);
    if (type === 'request.size.invalid' || type === 'request.aborted') {
      throw new AppError('validation_failed', `body: ${(error as Error).message}`, { field: 'body' });
    }
    throw error;
  }
}

/**
 * UTF-8, strictly: a byte sequence that is not UTF-8 is refused rather than
 * read with replacement characters. A leading byte-order mark is dropped (RFC
 * 8259 lets a parser ignore it, and the Fetch API's `json()` does), on every
 * surface alike.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A JSON body: its text (without a byte-order mark) and value; undefined when the request has none. */
export async function readJson(req: IncomingMessage, maxBytes: number): Promise<{ text: string; value: unknown } | undefined> {
  const bytes = await readBodyBytes(req, maxBytes);
  if (bytes.length === 0) return undefined;
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new AppError('unsupported_media_type', `Send the body as application/json (got ${type || 'no content-type'})`);
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError('invalid_json', 'body: not UTF-8 text', { field: 'body' });
  }
  try {
    return { text, value: JSON.parse(text) };
  } catch (error) {
    throw new AppError('invalid_json', `body: malformed JSON (${(error as Error).message})`, { field: 'body' });
  }
}

/** Reads and parses a JSON body; undefined when the request has none. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return (await readJson(req, maxBytes))?.value;
}

/** Reads an HTML form's body (application/x-www-form-urlencoded). */
export async function readFormBody(req: IncomingMessage, maxBytes: number): Promise<URLSearchParams> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new AppError('unsupported_media_type', `Send the form as application/x-www-form-urlencoded (got ${type || 'no content-type'})`);
  }
  return new URLSearchParams((await readBodyBytes(req, maxBytes)).toString('utf8'));
}
