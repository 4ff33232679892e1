import type { ServerResponse } from 'node:http';

/** A JSON body and its headers, as every surface and route answers: UTF-8, its length declared (a HEAD's answer keeps it). */
function jsonParts(body: unknown, headers: Record<string, string>) {
  const payload = body === undefined ? '' : JSON.stringify(body);
  return {
    payload,
    headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(payload)) },
  };
}

/** A JSON answer, as every surface and route gives one. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}) {
  const json = jsonParts(body, headers);
  return new Response(json.payload, { status, headers: json.headers });
}

/** jsonAnswer on Node's response, for what answers before any Request is built (the front door, Node routes). */
export function writeJsonAnswer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const json = jsonParts(body, headers);
  res.writeHead(status, json.headers).end(json.payload);
}
