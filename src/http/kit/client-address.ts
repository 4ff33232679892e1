import type { IncomingMessage } from 'node:http';
import { settings } from '../../config.ts';

/** The calling client's address: the proxy's X-Forwarded-For first entry when TRUST_PROXY is on, else the socket's peer. */
export function clientAddress(req: IncomingMessage): string {
  const forwarded = req.headers['x-forwarded-for'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  if (settings().TRUST_PROXY && first) return first;
  return req.socket.remoteAddress ?? 'unknown';
}
