import { expect } from 'vitest';
import type { TestServer } from './api-server.ts';

export const finishedStatuses = ['completed', 'failed', 'cancelled'];

/** Starts a validation job through the API (202) and returns it. */
export async function startValidation(server: TestServer, key: string, body: Record<string, unknown>) {
  const res = await server.request('POST', '/api/leads/validate', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.job as Record<string, any>;
}

/** Polls a validation job until `done` holds for it (by default: it has ended), and returns it. */
export async function waitForJob(
  server: TestServer,
  key: string,
  id: string,
  done = (job: Record<string, any>) => finishedStatuses.includes(job.status),
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await server.request('GET', `/api/leads/validate/${id}`, { key });
    expect(res.status).toBe(200);
    if (done(res.body.job)) return res.body.job as Record<string, any>;
    if (Date.now() > deadline)
      throw new Error(`validation job ${id} did not get there in ${timeoutMs} ms: ${JSON.stringify(res.body.job)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A job's per-address results, by address. */
export async function resultsOf(server: TestServer, key: string, id: string) {
  const res = await server.request('GET', `/api/leads/validate/${id}/results?limit=500`, { key });
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.results as Array<Record<string, any>>).map((result) => [result.email, result]));
}
