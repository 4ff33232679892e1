import { AppError } from '../errors/app-error.ts';

const tooLarge = (maxBytes: number, setting?: string) =>
  new AppError('payload_too_large', `Request body exceeds ${maxBytes} bytes${setting ? ` (${setting})` : ''}`);
const unreadable = (reason: string) => new AppError('validation_failed', `body: ${reason}`, { field: 'body' });

/**
 * The one reader of request bodies, for every surface (REST, GraphQL, tRPC, MCP and the domains' forms), so a
 * body gets the same answer wherever it is sent: over `maxBytes` it is 413 before a byte is read when its length
 * is declared, and once that many bytes came when it is chunked. The rest is left unread, never cancelled (that
 * would reset the connection before the answer): toErrorResponse's headers close the connection. A client that
 * goes away mid-body is 400.
 */
async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.length;
      if (length > maxBytes) throw tooLarge(maxBytes);
      chunks.push(value);
    }
  } catch (error) {
    throw error instanceof AppError ? error : unreadable((error as Error).message || 'the client went away');
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks, length);
}

/**
 * A large body read as it arrives, a chunk at a time (a file upload: never held whole), with the same limits as
 * readBodyBytes: over `maxBytes` is 413 naming `setting` (the limit's name in the configuration), before a byte is
 * read when its length is declared; a client that goes away mid-body is 400. The caller awaits each chunk's work
 * before the next is read, so a slow consumer slows the client down instead of buffering.
 */
export async function* readBodyChunks(request: Request, maxBytes: number, setting: string): AsyncGenerator<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes, setting);
  if (!request.body) return;
  const reader = request.body.getReader();
  let length = 0;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        throw unreadable((error as Error).message || 'the client went away');
      }
      if (next.done) return;
      length += next.value.length;
      if (length > maxBytes) throw tooLarge(maxBytes, setting);
      yield next.value;
    }
  } finally {
    reader.releaseLock();
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
export async function readJson(request: Request, maxBytes: number): Promise<{ text: string; value: unknown } | undefined> {
  const bytes = await readBodyBytes(request, maxBytes);
  if (bytes.length === 0) return undefined;
  const type = request.headers.get('content-type') ?? '';
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

/** Reads an HTML form's body (application/x-www-form-urlencoded). */
export async function readFormBody(request: Request, maxBytes: number): Promise<URLSearchParams> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new AppError('unsupported_media_type', `Send the form as application/x-www-form-urlencoded (got ${type || 'no content-type'})`);
  }
  return new URLSearchParams(Buffer.from(await readBodyBytes(request, maxBytes)).toString('utf8'));
}
