import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { getBalances } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';
import { useMailWorld } from '../support/mail-world.ts';
import { resultsOf, startValidation, waitForJob } from '../support/validation.ts';

/**
 * Validation jobs end to end: the API and a worker in this process, real DNS
 * (dns2) and real SMTP servers (smtp-server) on loopback addresses, each
 * domain's mail host scripted per recipient.
 */
const world = useMailWorld(
  {
    'acme.test': { ip: '127.0.0.11', mailboxes: { ada: 'accept', grace: 'accept', info: 'accept', grey: 'greylist' } },
    'catchall.test': { ip: '127.0.0.12', otherwise: 'accept' },
    'silent.test': { ip: '127.0.0.13', host: 'silent' },
    'nomail.test': { dns: 'none' },
    // Its mail host is on an address the outbound guard does not exempt: never connected to.
    'private.test': { ip: '127.0.0.14', otherwise: 'accept' },
    'strict.test': { ip: '127.0.0.15', mailboxes: { full: 'full' }, otherwise: 'blocked' },
  },
  { allowed: ['127.0.0.11', '127.0.0.12', '127.0.0.13', '127.0.0.15'] },
);
const server = useApiServer(Object.assign(world.env, { VALIDATION_RETRY_DELAY_MS: '300' }), { worker: true });

const everyKind = [
  'ada@acme.test',
  'nobody@acme.test',
  'info@acme.test',
  'grey@acme.test',
  'someone@catchall.test',
  'x@silent.test',
  'y@nomail.test',
  'z@private.test',
  'w@nowhere.test',
  'temp@mailinator.com',
  'full@strict.test',
  'who@strict.test',
];

describe('a validation job', () => {
  it('checks every address once, moves its progress while it runs, and writes each verdict to its leads', async () => {
    world.reset();
    const { apiKey, workspaceId } = await createTestWorkspace();
    const leads = await importLeads(server, apiKey, [
      ...everyKind.map((email) => ({ email, full_name: email })),
      { full_name: 'No Address' },
    ]);
    const ids = leads.map((lead) => lead.id);
    const before = (await getBalances(workspaceId)).validation;

    const job = await startValidation(server, apiKey, { lead_ids: [...ids, ids[0]] });
    expect(job).toMatchObject({
      status: 'queued',
      source: 'manual',
      total: 12,
      skipped: 1,
      processed: 0,
      billable: 0,
      credits_charged: 0,
      error: null,
      finished_at: null,
    });
    expect(job.counts).toEqual({ valid: 0, invalid: 0, accept_all: 0, disposable: 0, unknown: 0 });

    // Greylisted and silent addresses wait for their retry while the others are done: visible progress.
    const waiting = await waitForJob(server, apiKey, job.id, (j) => j.status === 'running' && j.deferred > 0 && j.processed >= 9);
    expect(waiting.processed).toBeLessThan(12);
    expect(waiting.next_retry_at).not.toBeNull();

    const done = await waitForJob(server, apiKey, job.id);
    expect(done).toMatchObject({
      status: 'completed',
      total: 12,
      processed: 12,
      billable: 8,
      credits_charged: 8,
      overage_credits: 0,
      deferred: 0,
      reused: 0,
      error: null,
    });
    expect(done.counts).toEqual({ valid: 3, invalid: 3, accept_all: 1, disposable: 1, unknown: 4 });
    expect(done.finished_at).not.toBeNull();
    expect((await getBalances(workspaceId)).validation).toBe(before - 8);

    const results = await resultsOf(server, apiKey, job.id);
    expect(Object.keys(results).sort()).toEqual([...everyKind].sort());
    expect(results['ada@acme.test']).toMatchObject({
      status: 'valid',
      reason: 'accepted',
      provider: 'other',
      mx_host: 'mx.acme.test',
      tries: 1,
      billed: true,
      is_role: false,
    });
    expect(results['nobody@acme.test']).toMatchObject({
      status: 'invalid',
      reason: 'mailbox_not_found',
      detail: expect.stringContaining('550 5.1.1'),
    });
    expect(results['info@acme.test']).toMatchObject({ status: 'valid', is_role: true });
    expect(results['grey@acme.test']).toMatchObject({ status: 'valid', tries: 2 });
    expect(results['someone@catchall.test']).toMatchObject({ status: 'accept_all', reason: 'accepted_any_address' });
    expect(results['x@silent.test']).toMatchObject({
      status: 'unknown',
      reason: 'greylisted_or_temporary',
      tries: 3,
      billed: false,
      detail: expect.stringContaining('no answer'),
    });
    expect(results['y@nomail.test']).toMatchObject({ status: 'invalid', reason: 'no_mail_host', tries: 1 });
    expect(results['w@nowhere.test']).toMatchObject({ status: 'invalid', reason: 'no_domain' });
    expect(results['temp@mailinator.com']).toMatchObject({ status: 'disposable', reason: 'disposable_domain', tries: 0, billed: true });
    expect(results['z@private.test']).toMatchObject({
      status: 'unknown',
      reason: 'mail_host_not_public',
      detail: expect.stringContaining('127.0.0.14'),
      billed: false,
    });
    expect(results['full@strict.test']).toMatchObject({ status: 'unknown', reason: 'mailbox_full' });
    expect(results['who@strict.test']).toMatchObject({ status: 'unknown', reason: 'blocked', detail: expect.stringContaining('5.7.1') });

    // Asked once each (a duplicate lead id included), the greylisted one twice; never DATA; the private host never reached.
    expect(world.rcpts('ada@acme.test')).toBe(1);
    expect(world.rcpts('grey@acme.test')).toBe(2);
    expect(world.dataCommands()).toBe(0);
    expect(world.connections('127.0.0.14').total).toBe(0);
    // One made-up address per domain for the catch-all check, even across the greylisting retry.
    for (const domain of ['acme.test', 'catchall.test', 'strict.test']) {
      const madeUp = Object.entries(world.recipientsAt(domain)).filter(([address]) => address.startsWith('nx-'));
      expect(madeUp, domain).toHaveLength(1);
      expect(madeUp[0]![1], domain).toBe(1);
    }

    const ada = (await server.request('GET', `/api/leads/${ids[0]}`, { key: apiKey })).body.lead;
    expect(ada).toMatchObject({ email_status: 'valid', email_provider: 'other', email_is_role: false, email_is_free: false });
    expect(Date.parse(ada.email_validated_at)).toBeGreaterThan(Date.parse(job.created_at) - 1);
    const info = (await server.request('GET', `/api/leads/${ids[2]}`, { key: apiKey })).body.lead;
    expect(info.email_is_role).toBe(true);
    const unknown = (await server.request('GET', `/api/leads/${ids[5]}`, { key: apiKey })).body.lead;
    expect(unknown.email_status).toBe('unknown');

    // The job is listed, newest first, and its end announced once on the outbox.
    const list = await server.request('GET', '/api/leads/validate', { key: apiKey });
    expect(list.body.jobs[0]).toEqual(done);
    // Announced as the job's working state is cleared, just after the job reads completed.
    const completedEvents = () =>
      mongoose.connection.db!.collection('events').find({ workspaceId, type: 'validation.job.completed' }).toArray();
    for (const deadline = Date.now() + 5_000; !(await completedEvents()).length && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 25));
    const events = await completedEvents();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ id: job.id, status: 'completed', billable: 8 });
    // Its working state is gone; its results stay for the results list.
    expect(await mongoose.connection.db!.collection('validation_work').countDocuments({ jobId: job.id })).toBe(0);
    expect(await mongoose.connection.db!.collection('validation_notes').countDocuments({ jobId: job.id })).toBe(0);
  });

  it("selects leads with the lead list's filters", async () => {
    const { apiKey } = await createTestWorkspace();
    await importLeads(server, apiKey, [
      { email: 'ada@acme.test', company: 'Acme' },
      { email: 'someone@catchall.test', company: 'Other' },
      { company: 'Acme', full_name: 'No Address' },
    ]);
    const job = await startValidation(server, apiKey, { filter: { q: 'acme' } });
    expect(job).toMatchObject({ total: 1, skipped: 1 });
    const done = await waitForJob(server, apiKey, job.id);
    expect(done.counts.valid).toBe(1);
    expect(Object.keys(await resultsOf(server, apiKey, job.id))).toEqual(['ada@acme.test']);
    const all = await startValidation(server, apiKey, { filter: {}, force: true });
    expect(all.total).toBe(2);
  });

  it('reuses a conclusive result within the cache window unbilled, unless forced', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const leads = await importLeads(server, apiKey, [{ email: 'ada@acme.test' }, { email: 'x@silent.test' }]);
    const ids = leads.map((lead) => lead.id);
    await waitForJob(server, apiKey, (await startValidation(server, apiKey, { lead_ids: [ids[0]] })).id);
    const balance = (await getBalances(workspaceId)).validation;
    world.reset();

    const again = await waitForJob(server, apiKey, (await startValidation(server, apiKey, { lead_ids: [ids[0]] })).id);
    expect(again).toMatchObject({ status: 'completed', processed: 1, reused: 1, billable: 0, credits_charged: 0 });
    expect(again.counts.valid).toBe(1);
    expect(world.rcpts('ada@acme.test')).toBe(0);
    expect((await resultsOf(server, apiKey, again.id))['ada@acme.test']).toMatchObject({
      status: 'valid',
      reason: 'reused',
      billed: false,
    });
    expect((await getBalances(workspaceId)).validation).toBe(balance);

    const forced = await waitForJob(server, apiKey, (await startValidation(server, apiKey, { lead_ids: [ids[0]], force: true })).id);
    expect(forced).toMatchObject({ reused: 0, billable: 1, credits_charged: 1 });
    expect(world.rcpts('ada@acme.test')).toBe(1);
  });

  it("forgets a lead's validation when its email changes", async () => {
    const { apiKey } = await createTestWorkspace();
    const [lead] = await importLeads(server, apiKey, [{ email: 'ada@acme.test' }]);
    await waitForJob(server, apiKey, (await startValidation(server, apiKey, { lead_ids: [lead!.id] })).id);
    const same = await server.request('PATCH', `/api/leads/${lead!.id}`, { key: apiKey, body: { field: 'email', value: 'ADA@acme.test' } });
    expect(same.body.lead.email_status).toBe('valid');
    const changed = await server.request('PATCH', `/api/leads/${lead!.id}`, {
      key: apiKey,
      body: { field: 'email', value: 'grace@acme.test' },
    });
    expect(changed.body.lead).toMatchObject({
      email_status: null,
      email_provider: null,
      email_is_role: null,
      email_is_free: null,
      email_validated_at: null,
    });
  });
});

describe('starting a validation job', () => {
  it('refuses bad input naming the field', async () => {
    const { apiKey } = await createTestWorkspace();
    const cases: Array<[unknown, string]> = [
      [{}, 'lead_ids'],
      [{ lead_ids: [crypto.randomUUID()], filter: {} }, 'filter'],
      [{ lead_ids: [] }, 'lead_ids'],
      [{ lead_ids: ['not-an-id'] }, 'lead_ids.0'],
      [{ lead_ids: Array.from({ length: 5_001 }, () => crypto.randomUUID()) }, 'lead_ids'],
      [{ filter: { colour: 'red' } }, 'filter.colour'],
      [{ filter: { status: 'sleeping' } }, 'filter.status'],
      [{ filter: { brand: crypto.randomUUID() } }, 'brand'],
    ];
    for (const [body, field] of cases) {
      const res = await server.request('POST', '/api/leads/validate', { key: apiKey, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(field === 'brand' ? 404 : 400);
      expect(res.body.field, JSON.stringify(res.body)).toBe(field);
    }
    expect((await server.request('GET', '/api/leads/validate', { key: apiKey })).body.jobs).toEqual([]);
  });

  it('needs the leads:validate permission; reading needs read', async () => {
    const workspace = await createTestWorkspace();
    const [lead] = await importLeads(server, workspace.apiKey, [{ email: 'ada@acme.test' }]);
    const reader = await workspace.keyWith('read');
    const validator = await workspace.keyWith('leads:validate');
    const refused = await server.request('POST', '/api/leads/validate', { key: reader, body: { lead_ids: [lead!.id] } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'missing_permission', permission: 'leads:validate' });
    const job = await startValidation(server, validator, { lead_ids: [lead!.id] });
    expect((await server.request('GET', `/api/leads/validate/${job.id}`, { key: validator })).status).toBe(403);
    expect((await server.request('GET', `/api/leads/validate/${job.id}`, { key: reader })).status).toBe(200);
    expect((await server.request('POST', `/api/leads/validate/${job.id}/cancel`, { key: reader })).status).toBe(403);
    await waitForJob(server, reader, job.id);
  });

  it("keeps each workspace's jobs and leads to itself", async () => {
    const mine = await createTestWorkspace();
    const theirs = await createTestWorkspace();
    const [lead] = await importLeads(server, mine.apiKey, [{ email: 'ada@acme.test' }]);
    const job = await startValidation(server, mine.apiKey, { lead_ids: [lead!.id] });
    for (const [method, path] of [
      ['GET', `/api/leads/validate/${job.id}`],
      ['GET', `/api/leads/validate/${job.id}/results`],
      ['POST', `/api/leads/validate/${job.id}/cancel`],
    ] as const) {
      expect((await server.request(method, path, { key: theirs.apiKey })).status, path).toBe(404);
    }
    expect((await server.request('GET', '/api/leads/validate', { key: theirs.apiKey })).body.jobs).toEqual([]);
    // Another workspace's lead ids select nothing of theirs.
    const foreign = await startValidation(server, theirs.apiKey, { lead_ids: [lead!.id] });
    expect(foreign).toMatchObject({ total: 0, skipped: 1 });
    expect(await waitForJob(server, theirs.apiKey, foreign.id)).toMatchObject({ status: 'completed', processed: 0, billable: 0 });
    await waitForJob(server, mine.apiKey, job.id);
    expect((await server.request('GET', `/api/leads/${lead!.id}`, { key: mine.apiKey })).body.lead.email_status).toBe('valid');
  });
});
