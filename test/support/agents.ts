import { expect } from 'vitest';
import type { TestServer } from './api-server.ts';

const finished = ['completed', 'failed', 'cancelled'];

/** Starts an agent run through the API (202) and returns `{ run_id, conversation_id, status }`. */
export async function startRun(server: TestServer, key: string, body: Record<string, unknown>) {
  const res = await server.request('POST', '/api/agents/runs', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { run_id: string; conversation_id: string; status: string };
}

/** Polls a run until `done` holds for it (by default: it has finished), and returns it with its artifacts. */
export async function waitForRun(
  server: TestServer,
  key: string,
  id: string,
  done = (run: Record<string, any>) => finished.includes(run.status),
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await server.request('GET', `/api/agents/runs/${id}`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (done(res.body)) return res.body as Record<string, any>;
    if (Date.now() > deadline) throw new Error(`agent run ${id} did not get there in ${timeoutMs} ms: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The leads a run saved, as the lead list filters them. */
export async function leadsOfRun(server: TestServer, key: string, runId: string) {
  const res = await server.request('GET', `/api/leads?agent_run_id=${runId}&limit=500`, { key });
  expect(res.status).toBe(200);
  return res.body.leads as Array<Record<string, any>>;
}

/** A signed download URL, fetched from the test server (the URL's base is PUBLIC_BASE_URL, unset in tests). */
export function download(server: TestServer, url: string | URL) {
  const signed = new URL(url);
  return fetch(`${server.baseUrl}${signed.pathname}${signed.search}`);
}
