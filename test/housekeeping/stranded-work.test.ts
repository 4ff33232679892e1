import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { strandedWorkRequeueHandler } from '../../src/housekeeping/jobs/stranded-work-requeue.handler.ts';
import { startRun, waitForRun as waitForAgentRun } from '../support/agents.ts';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { useCatalogueAndForbiddenSites } from '../support/fixture-sites.ts';
import { importLeads } from '../support/leads.ts';
import { useScriptedModel } from '../support/openai-server.ts';
import { freePort, startService } from '../support/processes.ts';
import { createScraper, scrapeEnv, waitForRun as waitForScrapeRun } from '../support/scraping.ts';
import { waitForJob } from '../support/validation.ts';

/**
 * Work an API process recorded and then died before queuing its job (test/support/crashing-service.ts kills it
 * there): the API and a worker run in this process, on the test clock; the dying API is a process of its own.
 */
const env: Record<string, string> = { OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1', ...scrapeEnv };
const model = useScriptedModel(env);
const server = useApiServer(env, { worker: true });
const clock = useTestClock();
const sites = useCatalogueAndForbiddenSites();

/** Sends one request to an API process of its own that dies (SIGKILL) as it is about to queue a `job` job. */
async function requestDyingBeforeQueuing(job: string, path: string, key: string, body: Record<string, unknown>) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const api = await startService(
    process.execPath,
    ['test/support/crashing-service.ts', 'api'],
    {
      ...env,
      MONGODB_URI: server.databaseUri,
      SECRETS_KEY: testSecretsKey,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      CRASH_BEFORE_QUEUING: job,
    },
    `${url}/healthz`,
  );
  const sent = fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await expect(sent).rejects.toThrow();
  expect(await api.exited, api.output()).toBe('SIGKILL');
}

const queuedJobs = (name: string, field: string, id: string) =>
  mongoose.connection.db!.collection('agenda_jobs').countDocuments({ name, [`data.${field}`]: id });

/** Ten minutes on, the sweep (a recurring job) runs. */
async function tenMinutesOn() {
  clock.advance(10 * 60_000 + 1_000);
  await strandedWorkRequeueHandler.handle({}, { id: 'a-sweep' });
}

describe('work recorded by an API process that died before queuing it', () => {
  it('an agent run is queued ten minutes on, and runs', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    model.reset();
    model.script({ toolCalls: [{ name: 'finish', arguments: { summary: 'Nobody found.' } }] });
    await requestDyingBeforeQueuing('agent.run', '/api/agents/runs', apiKey, { goal: 'The CTO of Acme' });
    const [run] = (await server.request('GET', '/api/agents/runs', { key: apiKey })).body as Array<Record<string, any>>;
    expect(run).toMatchObject({ status: 'queued' });
    expect(await queuedJobs('agent.run', 'runId', run!.id)).toBe(0);

    await tenMinutesOn();
    expect(await waitForAgentRun(server, apiKey, run!.id)).toMatchObject({ status: 'completed', result_summary: 'Nobody found.' });
  });

  it('an agent run resumed by a reply is queued ten minutes on, and goes on with the reply', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    model.reset();
    model.script({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which city?' } }] });
    const started = await startRun(server, apiKey, { goal: 'The CTO of Acme' });
    await waitForAgentRun(server, apiKey, started.run_id, (run) => run.status === 'paused');
    model.script({ toolCalls: [{ name: 'finish', arguments: { summary: 'Nobody in Berlin.' } }] });
    await requestDyingBeforeQueuing('agent.run', `/api/agents/runs/${started.run_id}/reply`, apiKey, { message: 'Berlin' });
    // Resumed (a second reply would be told it is still working), with no job to work on it.
    expect((await server.request('GET', `/api/agents/runs/${started.run_id}`, { key: apiKey })).body.status).toBe('running');

    await tenMinutesOn();
    expect(await waitForAgentRun(server, apiKey, started.run_id)).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('Berlin');
  });

  it('a scrape run is queued ten minutes on, and crawls', async () => {
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    await requestDyingBeforeQueuing('scrape.run', `/api/scrape/${scraperId}`, apiKey, { url: `${sites.site.origin}/catalogue?page=1` });
    const [run] = (await server.request('GET', `/api/scrapers/${scraperId}/runs`, { key: apiKey })).body.runs;
    expect(run).toMatchObject({ status: 'queued' });

    await tenMinutesOn();
    expect(await waitForScrapeRun(server, apiKey, run.id)).toMatchObject({ status: 'completed', pages: 4 });
  });

  it('a validation job is queued ten minutes on, and checks its addresses', async () => {
    const { apiKey } = await createTestWorkspace();
    const leads = await importLeads(server, apiKey, [{ email: 'temp@mailinator.com' }]);
    await requestDyingBeforeQueuing('validation.run', '/api/leads/validate', apiKey, { lead_ids: leads.map((lead) => lead.id) });
    const [job] = (await server.request('GET', '/api/leads/validate', { key: apiKey })).body.jobs;
    expect(job).toMatchObject({ status: 'queued' });

    await tenMinutesOn();
    expect(await waitForJob(server, apiKey, job.id)).toMatchObject({ status: 'completed', processed: 1, counts: { disposable: 1 } });
  });

  it('leaves work whose job is queued or under way to that job', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    model.reset();
    model.script({ toolCalls: [{ name: 'finish', arguments: { summary: 'Slowly.' } }], delayMs: 2_000 });
    const started = await startRun(server, apiKey, { goal: 'The CTO of Acme' });
    await waitForAgentRun(server, apiKey, started.run_id, () => model.requests.length === 1);
    await tenMinutesOn();
    expect(await queuedJobs('agent.run', 'runId', started.run_id)).toBe(1);
    expect(await waitForAgentRun(server, apiKey, started.run_id)).toMatchObject({ status: 'completed' });
    expect(model.requests).toHaveLength(1);
  });
});
