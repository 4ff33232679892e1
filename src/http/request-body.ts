import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors/app-error.ts';

/** Reads and parses a JSON body; undefined when the request has none. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw new AppError('payload_too_large', `Request body exceeds ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new AppError('payload_too_large', `Request body exceeds ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new AppError('unsupported_media_type', `Send the body as application/json (got ${type || 'no content-type'})`);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new AppError('invalid_json', `body: malformed JSON (${(error as Error).message})`, { field: 'body' });
  }
}
