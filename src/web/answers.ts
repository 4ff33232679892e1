import type { ServerResponse } from 'node:http';

/** A JSON answer, as every surface and route gives one: UTF-8, its length declared (a HEAD's answer keeps it). */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}) {
  const payload = body === undefined ? '' : JSON.stringify(body);
  return new Response(payload, {
    status,
    headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(payload)) },
  });
}

/** An HTML page, never cached. */
export const htmlAnswer = (status: number, html: string, headers: Record<string, string> = {}) =>
  new Response(html, { status, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers } });

/** jsonAnswer on Node's response, for what answers before any Request is built (the front door, Node routes). */
export function writeJsonAnswer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const payload = body === undefined ? '' : JSON.stringify(body);
  res
    .writeHead(status, {
      ...headers,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(payload)),
    })
    .end(payload);
}
