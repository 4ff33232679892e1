import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { getBalances } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { catalogueSite, serveFixture } from '../support/fixture-sites.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

/** Idempotency-Key on POSTs, through REST, tRPC and GraphQL. */
const server = useApiServer(scrapeEnv, { worker: true });
const count = (collection: string, filter: Record<string, unknown>) =>
  mongoose.connection.db!.collection(collection).countDocuments(filter);
const post = (key: string, path: string, body: unknown, idempotencyKey?: string) =>
  server.request('POST', path, { key, body, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} });

describe('Idempotency-Key', () => {
  it('answers a repeat with the first answer, replayed, doing nothing twice; another body with the key is 422', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const body = { title: 'Once', emoji: '1️⃣', system_prompt: 'Only once.' };
    const first = await post(apiKey, '/api/skills', body, 'skill-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post(apiKey, '/api/skills', { system_prompt: 'Only once.', emoji: '1️⃣', title: 'Once' }, 'skill-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await count('skills', { workspaceId })).toBe(1);

    const reused = await post(apiKey, '/api/skills', { ...body, title: 'Twice' }, 'skill-1');
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    // Another credential's key of the same name is its own.
    const other = await createTestWorkspace();
    expect((await post(other.apiKey, '/api/skills', body, 'skill-1')).headers.get('idempotent-replayed')).toBeNull();
    // Without a key, each POST acts.
    await post(apiKey, '/api/skills', body);
    expect(await count('skills', { workspaceId })).toBe(2);

    const tooLong = await post(apiKey, '/api/skills', body, 'k'.repeat(256));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.field).toBe('Idempotency-Key');
  });

  it('stores a 4xx answer and replays it', async () => {
    const { apiKey } = await createTestWorkspace();
    const bad = { goal: 'Anything', profile_id: '00000000-0000-4000-8000-000000000000' };
    const first = await post(apiKey, '/api/agents/runs', bad, 'bad-1');
    expect(first.status).toBe(404);
    const again = await post(apiKey, '/api/agents/runs', bad, 'bad-1');
    expect(again.status).toBe(404);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('starts a scrape once for concurrent retries of one request, charging once', async () => {
    const site = await serveFixture(catalogueSite({ pages: 2, pageDelayMs: 200 }));
    try {
      const { apiKey, workspaceId } = await createTestWorkspace();
      const scraperId = await createScraper(server, apiKey);
      const before = (await getBalances(workspaceId)).crawl;
      const body = { url: `${site.origin}/catalogue?page=1` };
      const answers = await Promise.all(Array.from({ length: 4 }, () => post(apiKey, `/api/scrape/${scraperId}`, body, 'scrape-1')));
      const ran = answers.filter((a) => a.status === 202 && a.headers.get('idempotent-replayed') === null);
      expect(ran).toHaveLength(1);
      for (const other of answers.filter((a) => a !== ran[0])) {
        expect([409, 202]).toContain(other.status);
        if (other.status === 409) expect(other.body.code).toBe('idempotency_in_progress');
        else expect(other.body.data.runId).toBe(ran[0]!.body.data.runId);
      }
      await waitForRun(server, apiKey, ran[0]!.body.data.runId);
      const late = await post(apiKey, `/api/scrape/${scraperId}`, body, 'scrape-1');
      expect(late.headers.get('idempotent-replayed')).toBe('true');
      expect(late.body.data.runId).toBe(ran[0]!.body.data.runId);
      expect(await count('scrape_runs', { workspaceId })).toBe(1);
      expect((await getBalances(workspaceId)).crawl).toBe(before - 2);
    } finally {
      await site.close();
    }
  });

  it('works the same on tRPC and GraphQL mutations', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'rpc-1' };
    const trpc = () =>
      fetch(`${server.baseUrl}/trpc/skills.create`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ title: 'RPC', emoji: '🛰️', system_prompt: 'x' }),
      });
    const [one, two] = [await trpc(), await trpc()];
    expect(one.status).toBe(200);
    expect(two.headers.get('idempotent-replayed')).toBe('true');
    expect((await two.json()).result.data.skill.id).toBe((await one.json()).result.data.skill.id);

    const mutation = { query: 'mutation { skillsCreate(title: "GQL", emoji: "🧬", system_prompt: "x") { skill { id } } }' };
    const graphql = () =>
      fetch(`${server.baseUrl}/graphql`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': 'gql-1' },
        body: JSON.stringify(mutation),
      });
    const [first, second] = [await graphql(), await graphql()];
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const ids = [(await first.json()).data.skillsCreate.skill.id, (await second.json()).data.skillsCreate.skill.id];
    expect(ids[0]).toBe(ids[1]);
    expect(await count('skills', { workspaceId })).toBe(2);
  });
});
