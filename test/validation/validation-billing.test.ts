import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { getBalances, setBalances } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';
import { useMailWorld } from '../support/mail-world.ts';
import { resultsOf, startValidation, waitForJob } from '../support/validation.ts';

/** Credits and cancelling, against real DNS and SMTP servers on loopback. */
const world = useMailWorld({
  'acme.test': { ip: '127.0.0.21', mailboxes: { ada: 'accept', grace: 'accept', info: 'accept', linus: 'accept' } },
  'catchall.test': { ip: '127.0.0.22', otherwise: 'accept' },
  'strict.test': { ip: '127.0.0.23', otherwise: 'blocked' },
  'silent.test': { ip: '127.0.0.24', host: 'silent' },
  // 300 ms for each RCPT: a job over it works for a few seconds.
  'slow.test': { ip: '127.0.0.25', otherwise: 'slow' },
});
const server = useApiServer(Object.assign(world.env, { VALIDATION_RETRY_DELAY_MS: '2000' }), { worker: true });

const leadsWithStatus = async (workspaceId: string) =>
  mongoose.connection.db!.collection('leads').countDocuments({ workspaceId, email_status: { $ne: null } });

describe('validation credits', () => {
  it('refuses to start with no validation credits and overage off (402), queueing nothing', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const [lead] = await importLeads(server, apiKey, [{ email: 'ada@acme.test' }]);
    await setBalances(workspaceId, { validation: 0 });
    const res = await server.request('POST', '/api/leads/validate', { key: apiKey, body: { lead_ids: [lead!.id] } });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'validation_credits_exhausted', needed: 1, remaining: 0 });
    expect((await server.request('GET', '/api/leads/validate', { key: apiKey })).body.jobs).toEqual([]);
  });

  it('ends the job when credits run out mid-job, the leads not checked keeping their previous status', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const emails = ['ada@acme.test', 'grace@acme.test', 'info@acme.test', 'nobody@acme.test', 'someone@catchall.test'];
    const leads = await importLeads(
      server,
      apiKey,
      emails.map((email) => ({ email })),
    );
    await setBalances(workspaceId, { validation: 2 });
    const job = await waitForJob(server, apiKey, (await startValidation(server, apiKey, { lead_ids: leads.map((l) => l.id) })).id);
    expect(job).toMatchObject({
      status: 'completed',
      error: 'validation_credits_exhausted',
      processed: 2,
      billable: 2,
      credits_charged: 2,
      overage_credits: 0,
    });
    expect(Object.values(job.counts).reduce((a: number, b) => a + (b as number), 0)).toBe(2);
    expect((await getBalances(workspaceId)).validation).toBe(0);
    expect(await leadsWithStatus(workspaceId)).toBe(2);
    expect(Object.keys(await resultsOf(server, apiKey, job.id))).toHaveLength(2);
  });

  it('goes on beyond the balance with overage on, recording the overage', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const leads = await importLeads(
      server,
      apiKey,
      ['ada@acme.test', 'nobody@acme.test', 'someone@catchall.test'].map((email) => ({ email })),
    );
    await setBalances(workspaceId, { validation: 1, overage: true });
    const job = await waitForJob(server, apiKey, (await startValidation(server, apiKey, { lead_ids: leads.map((l) => l.id) })).id);
    expect(job).toMatchObject({ status: 'completed', error: null, processed: 3, billable: 3, credits_charged: 1, overage_credits: 2 });
    expect((await getBalances(workspaceId)).validation).toBe(0);
    expect(await leadsWithStatus(workspaceId)).toBe(3);
  });

  it('charges nothing for unknown results', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const leads = await importLeads(server, apiKey, [{ email: 'who@strict.test' }, { email: 'what@strict.test' }]);
    const before = (await getBalances(workspaceId)).validation;
    const job = await waitForJob(server, apiKey, (await startValidation(server, apiKey, { lead_ids: leads.map((l) => l.id) })).id);
    expect(job).toMatchObject({ status: 'completed', processed: 2, billable: 0, credits_charged: 0 });
    expect(job.counts.unknown).toBe(2);
    expect((await getBalances(workspaceId)).validation).toBe(before);
  });
});

describe('cancelling a validation job', () => {
  it('stops a working job within about a second, keeping what it concluded and charged', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const leads = await importLeads(
      server,
      apiKey,
      Array.from({ length: 20 }, (_, i) => ({ email: `person${i}@slow.test` })),
    );
    const before = (await getBalances(workspaceId)).validation;
    const started = await startValidation(server, apiKey, { lead_ids: leads.map((l) => l.id) });
    await waitForJob(server, apiKey, started.id, (j) => j.processed >= 2);

    const cancel = await server.request('POST', `/api/leads/validate/${started.id}/cancel`, { key: apiKey });
    expect(cancel.status).toBe(200);
    expect(cancel.body.job).toMatchObject({ id: started.id, status: 'cancelled' });
    expect(cancel.body.job.finished_at).not.toBeNull();

    await new Promise((r) => setTimeout(r, 2_000));
    const job = (await server.request('GET', `/api/leads/validate/${started.id}`, { key: apiKey })).body.job;
    expect(job.status).toBe('cancelled');
    expect(job.processed).toBeLessThan(20);
    // Every result it kept was charged once and written to its lead; nothing after the stop.
    expect(job).toMatchObject({ billable: job.processed, credits_charged: job.processed });
    expect(Object.keys(await resultsOf(server, apiKey, started.id))).toHaveLength(job.processed);
    expect(await leadsWithStatus(workspaceId)).toBe(job.processed);
    expect((await getBalances(workspaceId)).validation).toBe(before - job.processed);
    // Two connections to its mail host at once (SMTP_PROBE_CONCURRENCY_PER_MX), never more.
    expect(world.connections('127.0.0.25').peak).toBe(2);
    const asked = Object.keys(world.recipientsAt('slow.test')).filter((address) => address.startsWith('person')).length;
    expect(asked).toBeLessThan(20);
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await server.request('GET', `/api/leads/validate/${started.id}`, { key: apiKey })).body.job).toEqual(job);
  });

  it('cancels a job waiting to ask again, which then asks nobody; an ended job is 409', async () => {
    const { apiKey } = await createTestWorkspace();
    const leads = await importLeads(server, apiKey, [{ email: 'x@silent.test' }, { email: 'ada@acme.test' }]);
    world.reset();
    const started = await startValidation(server, apiKey, { lead_ids: leads.map((l) => l.id) });
    const waiting = await waitForJob(server, apiKey, started.id, (j) => j.deferred === 1 && j.processed === 1 && j.next_retry_at !== null);
    expect(waiting.status).toBe('running');

    const cancel = await server.request('POST', `/api/leads/validate/${started.id}/cancel`, { key: apiKey });
    expect(cancel.body.job).toMatchObject({ status: 'cancelled', deferred: 0, next_retry_at: null, processed: 1 });
    await new Promise((r) => setTimeout(r, 3_000)); // past the retry time
    expect(world.connections('127.0.0.24').total).toBe(1);
    expect((await server.request('GET', `/api/leads/validate/${started.id}`, { key: apiKey })).body.job.status).toBe('cancelled');
    expect(await mongoose.connection.db!.collection('validation_work').countDocuments({ jobId: started.id })).toBe(0);

    const again = await server.request('POST', `/api/leads/validate/${started.id}/cancel`, { key: apiKey });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'conflict', status: 'cancelled' });
  });
});
