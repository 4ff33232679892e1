import { beforeEach, describe, expect, it } from 'vitest';
import { setBalances } from '../../src/credits/credits.service.ts';
import { download, startRun, waitForRun } from '../support/agents.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { useScriptedModel } from '../support/openai-server.ts';

/** The agent API around the runs: the reply table, cancel, artifacts' signed URLs, credits, permissions, isolation, skills. */
// The scripted model listens on 127.0.0.1, which the outbound guard must be told to allow.
const env: Record<string, string> = { OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' };
const model = useScriptedModel(env);
const server = useApiServer(env, { worker: true });
const clock = useTestClock();
beforeEach(() => model.reset());

const finishWith = (summary: string, delayMs = 0) => ({ toolCalls: [{ name: 'finish', arguments: { summary } }], delayMs });
const reply = (key: string, id: string, body: Record<string, unknown>) =>
  server.request('POST', `/api/agents/runs/${id}/reply`, { key, body });

describe('replying to an agent run', () => {
  it('starts a follow-up run in the same conversation when the run has finished, inheriting its context', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    model.script(finishWith('Found 3 CTOs.'), finishWith('Found 2 more.'));
    const first = await startRun(server, apiKey, { goal: 'CTOs in Berlin', context: { product: 'payroll API' } });
    await waitForRun(server, apiKey, first.run_id);

    const followUp = await reply(apiKey, first.run_id, { message: 'Now in Munich' });
    expect(followUp.status).toBe(200);
    expect(followUp.body).toMatchObject({ conversation_id: first.conversation_id, status: 'queued' });
    expect(followUp.body.run_id).not.toBe(first.run_id);
    const second = await waitForRun(server, apiKey, followUp.body.run_id);
    expect(second).toMatchObject({
      goal: 'Now in Munich',
      parent_run_id: first.run_id,
      conversation_id: first.conversation_id,
      status: 'completed',
    });
    const system = String(model.requests[1]!.messages[0]!.content);
    expect(system).toContain('payroll API');
    expect(system).toContain('CTOs in Berlin');
    expect(system).toContain('Found 3 CTOs.');
  });

  it('answers 409 while the run works, and with interrupt cancels it and starts a new run with the message', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    model.script(finishWith('slow', 2_000), finishWith('The new one.'));
    const first = await startRun(server, apiKey, { goal: 'Slow research' });
    await waitForRun(server, apiKey, first.run_id, (run) => ['planning', 'running'].includes(run.status));

    const refused = await reply(apiKey, first.run_id, { message: 'Hurry' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict' });

    const interrupted = await reply(apiKey, first.run_id, { message: 'Something else', interrupt: true });
    expect(interrupted.status).toBe(200);
    expect(interrupted.body).toMatchObject({ conversation_id: first.conversation_id, status: 'queued' });
    expect((await server.request('GET', `/api/agents/runs/${first.run_id}`, { key: apiKey })).body.status).toBe('cancelled');
    const next = await waitForRun(server, apiKey, interrupted.body.run_id);
    expect(next).toMatchObject({ status: 'completed', goal: 'Something else', parent_run_id: first.run_id });
    // The cancelled run stopped between steps: its slow answer was never acted on.
    expect((await waitForRun(server, apiKey, first.run_id)).result_summary).not.toBe('slow');
  });
});

describe('cancelling an agent run', () => {
  it('cancels a paused run, and answers 409 once the run has finished', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    model.script({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which market?' } }] });
    const run = await startRun(server, apiKey, { goal: 'Anything' });
    await waitForRun(server, apiKey, run.run_id, (r) => r.status === 'paused');
    const cancelled = await server.request('POST', `/api/agents/runs/${run.run_id}/cancel`, { key: apiKey });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: run.run_id, status: 'cancelled' });
    expect(cancelled.body.finished_at).not.toBeNull();
    const again = await server.request('POST', `/api/agents/runs/${run.run_id}/cancel`, { key: apiKey });
    expect(again.status).toBe(409);
  });
});

describe('artifacts', () => {
  it('lists leads.csv on a finished run, downloadable without a key for one hour; altered or expired URLs answer 403', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    model.script(finishWith('Nothing found.'));
    const started = await startRun(server, apiKey, { goal: 'Anything' });
    const run = await waitForRun(server, apiKey, started.run_id);
    expect(run.artifacts).toHaveLength(1);
    const csv = run.artifacts[0];
    expect(csv).toMatchObject({ name: 'leads.csv', mime_type: 'text/csv', row_count: 0, preview: { rows: [] } });
    expect(csv.id).toMatch(/^[0-9a-f-]{36}$/);

    const ok = await download(server, csv.download_url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('text/csv');
    const text = await ok.text();
    expect(text.split('\n')[0]).toBe('id,company,full_name,title,email,phone,domain,linkedin_url,location,source_url');
    expect(Buffer.byteLength(text)).toBe(csv.size_bytes);

    const url = new URL(csv.download_url);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await download(server, tampered)).status).toBe(403);
    const otherSignature = new URL(url);
    const signature = url.searchParams.get('signature')!;
    // Another last character (one that already ended in A would stay the same signature).
    otherSignature.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`);
    expect((await download(server, otherSignature)).status).toBe(403);

    clock.advance(3_600_000 + 1_000);
    expect((await download(server, csv.download_url)).status).toBe(403);
    const fresh = (await server.request('GET', `/api/agents/runs/${started.run_id}`, { key: apiKey })).body.artifacts[0].download_url;
    expect((await download(server, fresh)).status).toBe(200);
  });
});

describe('starting agent runs', () => {
  it('refuses with 402 when the workspace has no agent credits and overage is off, starting nothing', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace('pro');
    await setBalances(workspaceId, { agent: 0, overage: false });
    const res = await server.request('POST', '/api/agents/runs', { key: apiKey, body: { goal: 'Anything' } });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('insufficient_credits');
    expect((await server.request('GET', '/api/agents/runs', { key: apiKey })).body).toEqual([]);
  });

  it('names the field of bad input, and needs the agents permission to start, read to list', async () => {
    const workspace = await createTestWorkspace('pro');
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await server.request('POST', '/api/agents/runs', { key: workspace.apiKey, body });
      expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(JSON.stringify(res.body)).toContain(field);
    };
    await bad({ goal: '' }, 'goal');
    await bad({ goal: 'x'.repeat(4_001) }, 'goal');
    await bad({ goal: 'x', options: { max_leads: 501 } }, 'options.max_leads');
    await bad({ goal: 'x', output_schema: { type: 'nonsense' } }, 'output_schema');
    await bad({ goal: 'x', profile_id: '00000000-0000-4000-8000-000000000000' }, 'profile_id');
    await bad({ goal: 'x', conversation_id: '00000000-0000-4000-8000-000000000000' }, 'conversation_id');

    const reader = await workspace.keyWith('read');
    const denied = await server.request('POST', '/api/agents/runs', { key: reader, body: { goal: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'missing_permission', permission: 'agents' });
    expect((await server.request('GET', '/api/agents/runs', { key: reader })).status).toBe(200);
  });

  it('keeps runs to their workspace: lists narrow to it, other workspaces get 404', async () => {
    const mine = await createTestWorkspace('pro');
    const theirs = await createTestWorkspace('pro');
    model.script(finishWith('done'));
    const run = await startRun(server, mine.apiKey, { goal: 'Mine' });
    await waitForRun(server, mine.apiKey, run.run_id);
    const list = await server.request('GET', '/api/agents/runs?limit=100', { key: mine.apiKey });
    expect(list.body.map((r: { id: string }) => r.id)).toEqual([run.run_id]);
    expect(list.body[0]).not.toHaveProperty('artifacts');
    expect((await server.request('GET', '/api/agents/runs', { key: theirs.apiKey })).body).toEqual([]);
    for (const [method, path] of [
      ['GET', `/api/agents/runs/${run.run_id}`],
      ['POST', `/api/agents/runs/${run.run_id}/cancel`],
    ]) {
      expect((await server.request(method!, path!, { key: theirs.apiKey })).status).toBe(404);
    }
    expect((await reply(theirs.apiKey, run.run_id, { message: 'hi' })).status).toBe(404);
  });
});

describe('skills', () => {
  it('creates, lists and deletes skills that always carry the safe default tools, refusing any that names tools', async () => {
    const { apiKey } = await createTestWorkspace();
    const created = await server.request('POST', '/api/skills', {
      key: apiKey,
      body: { title: 'Fintech focus', emoji: '💶', system_prompt: 'Prefer payment companies.' },
    });
    expect(created.status).toBe(201);
    expect(created.body.skill).toMatchObject({ title: 'Fintech focus', emoji: '💶', system_prompt: 'Prefer payment companies.' });
    expect(created.body.skill.tools).toEqual(['web_search', 'fetch_page', 'extract_contacts', 'save_leads', 'ask_user', 'finish']);

    const widening = await server.request('POST', '/api/skills', {
      key: apiKey,
      body: { title: 'Shell', emoji: '🐚', system_prompt: 'x', tools: ['shell'] },
    });
    expect(widening.status).toBe(400);
    expect(JSON.stringify(widening.body)).toContain('tools');
    for (const [body, field] of [
      [{ title: 'x'.repeat(81), emoji: '💶', system_prompt: 'x' }, 'title'],
      [{ title: 'Two', emoji: '💶💶', system_prompt: 'x' }, 'emoji'],
      [{ title: 'Text', emoji: 'ab', system_prompt: 'x' }, 'emoji'],
      [{ title: 'Long', emoji: '💶', system_prompt: 'x'.repeat(8_001) }, 'system_prompt'],
    ] as const) {
      const res = await server.request('POST', '/api/skills', { key: apiKey, body });
      expect(res.status).toBe(400);
      expect(res.body.field ?? JSON.stringify(res.body.issues)).toContain(field);
    }

    expect((await server.request('GET', '/api/skills', { key: apiKey })).body.skills.map((s: { id: string }) => s.id)).toEqual([
      created.body.skill.id,
    ]);
    const unknown = await server.request('POST', '/api/agents/runs', {
      key: apiKey,
      body: { goal: 'x', skill_ids: ['00000000-0000-4000-8000-000000000000'] },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.field).toBe('skill_ids');
    expect((await server.request('DELETE', `/api/skills/${created.body.skill.id}`, { key: apiKey })).status).toBe(200);
    expect((await server.request('GET', '/api/skills', { key: apiKey })).body.skills).toEqual([]);
  });
});
