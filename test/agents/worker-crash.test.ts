import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRun } from '../../src/agents/agent-run.model.ts';
import { saveAgentLeads } from '../../src/agents/run/save-leads.ts';
import { getBalances } from '../../src/credits/credits.service.ts';
import { leadsOfRun, startRun, waitForRun } from '../support/agents.ts';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { serveFixture, type FixtureSite } from '../support/fixture-sites.ts';
import { useScriptedModel } from '../support/openai-server.ts';
import { startService } from '../support/processes.ts';
import { useWebhookReceiver } from '../support/webhook-receiver.ts';

// The API runs here without a worker; workers are separate processes, the first killed mid-run.
const env: Record<string, string> = { OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' };
const model = useScriptedModel(env);
const server = useApiServer(env);
const receiver = useWebhookReceiver();

const page =
  '<html><body><div class="member"><h3>Ada Lovelace</h3><p>CTO</p><a href="mailto:ada@acme.example">mail</a></div></body></html>';
let site: FixtureSite;
beforeAll(async () => void (site = await serveFixture((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(page))));
afterAll(() => site.close());

const workerEnv = () => ({
  ...env,
  MONGODB_URI: server.databaseUri,
  SECRETS_KEY: testSecretsKey,
  AGENT_LOCK_LIFETIME_MS: '2000',
  // The dead worker's turn at the event outbox passes on as soon.
  WEBHOOK_LOCK_LIFETIME_MS: '2000',
  LOG_LEVEL: 'error',
  PORT: '0',
});
const startWorkerProcess = () => startService(process.execPath, ['src/main.ts', 'worker'], workerEnv(), null);
/** A worker that kills itself once a run's status is set to `status` (test/support/crashing-service.ts). */
const startCrashingWorker = (status: string) =>
  startService(
    process.execPath,
    ['test/support/crashing-service.ts', 'worker'],
    { ...workerEnv(), CRASH_AFTER_SETTING: `AgentRun:${status}` },
    null,
  );

describe('an agent worker that dies mid-run', () => {
  it('has the run taken over and continued from its last recorded step, each step charged once', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace('pro');
    const teamUrl = `${site.origin}/team`;
    model.script(
      { toolCalls: [{ name: 'fetch_page', arguments: { url: teamUrl } }], totalTokens: 1_000 },
      {
        toolCalls: [
          { name: 'save_leads', arguments: { leads: [{ full_name: 'Ada Lovelace', email: 'ada@acme.example', source_url: teamUrl }] } },
        ],
        totalTokens: 1_000,
      },
      // The first worker dies waiting for this answer; the second asks again and gets the next one.
      { toolCalls: [{ name: 'finish', arguments: { summary: 'never used' } }], delayMs: 10_000 },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Saved Ada.' } }], totalTokens: 1_000 },
    );
    const before = (await getBalances(workspaceId)).agent;
    const first = await startWorkerProcess();
    const started = await startRun(server, apiKey, { goal: 'The CTO of Acme' });
    await waitForRun(server, apiKey, started.run_id, (run) => run.leads_saved === 1);
    await new Promise((r) => setTimeout(r, 300)); // the third request is out
    first.kill();

    const second = await startWorkerProcess();
    try {
      const run = await waitForRun(server, apiKey, started.run_id, undefined, 30_000);
      expect(run).toMatchObject({
        status: 'completed',
        result_summary: 'Saved Ada.',
        leads_saved: 1,
        pages_fetched: 1,
        tokens_used: 3_000,
        credits_charged: 4,
      });
      expect((await getBalances(workspaceId)).agent).toBe(before - 4);
      expect(await leadsOfRun(server, apiKey, started.run_id)).toHaveLength(1);
      // The second worker went on from the same transcript: its request repeats the dead worker's last one.
      expect(model.requests).toHaveLength(4);
      expect(model.requests[3]!.messages).toEqual(model.requests[2]!.messages);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it("stores a step's leads once when the step is done again, people without an address included", async () => {
    const { apiKey } = await createTestWorkspace('pro');
    model.script({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Hold on?' } }] });
    const worker = await startWorkerProcess();
    try {
      const started = await startRun(server, apiKey, { goal: 'Anyone' });
      await waitForRun(server, apiKey, started.run_id, (run) => run.status === 'paused');
      const run = (await AgentRun.findById(started.run_id).lean())!;
      const teamUrl = `${site.origin}/team`;
      const leads = [
        { full_name: 'Ada Lovelace', email: 'ada@acme.example', source_url: teamUrl },
        { full_name: 'Nameonly Person', title: 'CFO', source_url: teamUrl },
      ];
      const budget = { pagesLeft: 10, leadsLeft: 10 };
      const once = await saveAgentLeads(run as never, leads, new Set([teamUrl]), budget);
      const again = await saveAgentLeads(run as never, leads, new Set([teamUrl]), budget);
      expect(once).toMatchObject({ created: 2, duplicates: 0 });
      expect(again).toMatchObject({ created: 0, duplicates: 2 });
      expect((await leadsOfRun(server, apiKey, started.run_id)).map((l) => l.full_name).sort()).toEqual([
        'Ada Lovelace',
        'Nameonly Person',
      ]);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});

describe('an agent worker that dies right after a run ends or pauses', () => {
  const finish = { name: 'finish', arguments: { summary: 'Nobody found.' } };
  const ask = { name: 'ask_user', arguments: { question: 'Which city?' } };
  for (const [status, step, event, startsSpent] of [
    ['completed', finish, 'agent.run.completed', false],
    ['paused', ask, 'agent.run.paused', false],
    // That death was the job's last start: the next start gives the job up.
    ['completed', finish, 'agent.run.completed', true],
    ['paused', ask, 'agent.run.paused', true],
  ] as const) {
    it(`has the worker taking the run over announce it ${status} (${event})${startsSpent ? ', giving up its job' : ''}`, async () => {
      const { apiKey } = await createTestWorkspace('pro');
      await server.request('POST', '/api/webhooks', { key: apiKey, body: { url: receiver.url, events: [event] } });
      receiver.reset();
      model.reset();
      model.script({ toolCalls: [step], totalTokens: 1_000 });
      const crashing = await startCrashingWorker(status);
      const started = await startRun(server, apiKey, { goal: 'The CTO of Acme' });
      expect(await crashing.exited, crashing.output()).toBe('SIGKILL');
      expect((await waitForRun(server, apiKey, started.run_id, () => true)).status).toBe(status);
      if (startsSpent) {
        const job = await mongoose.connection.db!.collection('agenda_jobs').findOne({ name: 'agent.run', 'data.runId': started.run_id });
        await mongoose.connection.db!.collection('job_attempts').updateOne({ _id: String(job!._id) as never }, { $set: { starts: 3 } });
      }

      const next = await startWorkerProcess();
      try {
        const [delivery] = await receiver.waitFor(1, 30_000);
        const message = JSON.parse(delivery!.body) as { type: string; data: { id: string; status: string } };
        expect(message).toMatchObject({ type: event, data: { id: started.run_id, status } });
        expect(model.requests).toHaveLength(1);
      } finally {
        await next.stop();
      }
    }, 60_000);
  }
});
