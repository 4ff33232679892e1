import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors/app-error.ts';

/** The body's bytes, refused past `maxBytes` (413) whether or not the length was declared. */
async function readBodyBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw new AppError('payload_too_large', `Request body exceeds ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new AppError('payload_too_large', `Request body exceeds ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Reads and parses a JSON body; undefined when the request has none. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const bytes = await readBodyBytes(req, maxBytes);
  if (bytes.length === 0) return undefined;
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new AppError('unsupported_media_type', `Send the body as application/json (got ${type || 'no content-type'})`);
  }
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new AppError('invalid_json', `body: malformed JSON (${(error as Error).message})`, { field: 'body' });
  }
}

/** Reads an HTML form's body (application/x-www-form-urlencoded). */
export async function readFormBody(req: IncomingMessage, maxBytes: number): Promise<URLSearchParams> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new AppError('unsupported_media_type', `Send the form as application/x-www-form-urlencoded (got ${type || 'no content-type'})`);
  }
  return new URLSearchParams((await readBodyBytes(req, maxBytes)).toString('utf8'));
}
