import { describe, expect, it } from 'vitest';
import { getBalances, setBalances } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';
import { useMailWorld } from '../support/mail-world.ts';
import { startValidation, waitForJob } from '../support/validation.ts';

/** The email finder against real DNS and SMTP servers on loopback, each mail host scripted per mailbox. */
const world = useMailWorld({
  'acme.test': { ip: '127.0.0.31', mailboxes: { 'ada.byron': 'accept', ghopper: 'accept', ltorvalds: 'accept', linus: 'accept' } },
  'catchall.test': { ip: '127.0.0.32', otherwise: 'accept' },
  'silent.test': { ip: '127.0.0.33', host: 'silent' },
  'grey.test': { ip: '127.0.0.34', mailboxes: { 'ada.byron': 'greylist' } },
  'nomail.test': { dns: 'none' },
});
// A silent host's three tries take at least 3.9 s (1 s timeouts, 0.3 and 0.6 s between): past the 2.5 s wait.
const server = useApiServer(Object.assign(world.env, { VALIDATION_RETRY_DELAY_MS: '300', VALIDATION_INLINE_WAIT_MS: '2500' }), {
  worker: true,
});

const find = (key: string, body: Record<string, unknown>) => server.request('POST', '/api/leads/find-email', { key, body });

describe('POST /api/leads/find-email', () => {
  it('finds the address the mail server accepts, asking a made-up one first and sending nothing, for one credit', async () => {
    world.reset();
    const { apiKey, workspaceId } = await createTestWorkspace();
    const before = (await getBalances(workspaceId)).validation;
    const res = await find(apiKey, { full_name: 'Ada Byron', domain: 'ACME.test' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      email: 'ada.byron@acme.test',
      status: 'valid',
      pattern: 'first.last',
      known_pattern: null,
      tried: 1,
      reason: null,
      detail: null,
      credits_charged: 1,
      lead_updated: false,
    });
    expect((await getBalances(workspaceId)).validation).toBe(before - 1);
    const asked = Object.keys(world.recipientsAt('acme.test'));
    expect(asked).toHaveLength(2);
    expect(asked.find((address) => address.startsWith('nx-'))).toBeDefined();
    // One conversation for the made-up address and the candidate.
    expect(world.connections('127.0.0.31').total).toBe(1);
    expect(world.dataCommands()).toBe(0);
  });

  it("tries the domain's pattern learnt from the workspace's validated addresses first", async () => {
    const { apiKey } = await createTestWorkspace();
    const [known] = await importLeads(server, apiKey, [{ full_name: 'Grace Hopper', email: 'ghopper@acme.test' }]);
    const job = await waitForJob(server, apiKey, (await startValidation(server, apiKey, { lead_ids: [known!.id] })).id);
    expect(job.counts.valid).toBe(1);

    const res = await find(apiKey, { first_name: 'Linus', last_name: 'Torvalds', domain: 'acme.test' });
    expect(res.body).toMatchObject({ email: 'ltorvalds@acme.test', status: 'valid', pattern: 'flast', known_pattern: 'flast', tried: 1 });
    // Another workspace knows no pattern there: the usual order finds linus@ first.
    const other = await createTestWorkspace();
    expect((await find(other.apiKey, { full_name: 'Linus Torvalds', domain: 'acme.test' })).body).toMatchObject({
      email: 'linus@acme.test',
      pattern: 'first',
      known_pattern: null,
      tried: 2,
    });
  });

  it('answers accept_all with the likeliest candidate at a catch-all domain, asking no candidate', async () => {
    world.reset();
    const { apiKey } = await createTestWorkspace();
    const res = await find(apiKey, { full_name: 'Ada Byron', domain: 'catchall.test' });
    expect(res.body).toMatchObject({
      email: 'ada.byron@catchall.test',
      status: 'accept_all',
      pattern: 'first.last',
      tried: 0,
      credits_charged: 1,
    });
    expect(Object.keys(world.recipientsAt('catchall.test'))).toHaveLength(1);
  });

  it('never answers an address the server refused: not_found when every candidate is refused, or the domain takes no mail', async () => {
    world.reset();
    const { apiKey, workspaceId } = await createTestWorkspace();
    const res = await find(apiKey, { full_name: 'Nobody Here', domain: 'acme.test' });
    expect(res.body).toMatchObject({
      email: null,
      status: 'not_found',
      pattern: null,
      tried: 10,
      reason: 'mailbox_not_found',
      credits_charged: 1,
    });
    expect(world.recipientsAt('acme.test')['nobody.here@acme.test']).toBe(1);
    const none = await find(apiKey, { full_name: 'Ada Byron', domain: 'nomail.test' });
    expect(none.body).toMatchObject({ email: null, status: 'not_found', tried: 0, reason: 'no_mail_host', credits_charged: 1 });
    expect((await getBalances(workspaceId)).validation).toBe(98);
  });

  it('asks a greylisted candidate again after the retry delay', async () => {
    world.reset();
    const { apiKey } = await createTestWorkspace();
    const res = await find(apiKey, { full_name: 'Ada Byron', domain: 'grey.test' });
    expect(res.body).toMatchObject({ email: 'ada.byron@grey.test', status: 'valid', credits_charged: 1 });
    expect(world.rcpts('ada.byron@grey.test')).toBe(2);
    // The refused candidates were asked once.
    expect(world.rcpts('ada@grey.test')).toBe(1);
  });

  it('says unknown, for free, when no mail host answers on the probe port', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const before = (await getBalances(workspaceId)).validation;
    const res = await find(apiKey, { full_name: 'Ada Byron', domain: 'silent.test' });
    expect(res.body).toMatchObject({ email: null, status: 'unknown', reason: 'smtp_unreachable', tried: 0, credits_charged: 0 });
    expect(res.body.detail).toContain('mx.silent.test');
    expect((await getBalances(workspaceId)).validation).toBe(before);
  });

  it('writes a found address to a lead whose email is empty, with its status, and never overwrites one', async () => {
    const { apiKey } = await createTestWorkspace();
    const [lead, withEmail] = await importLeads(server, apiKey, [
      { full_name: 'Ada Byron', company: 'Acme', domain: 'acme.test' },
      { full_name: 'Grace Hopper', email: 'grace@elsewhere.test' },
    ]);
    const res = await find(apiKey, { lead_id: lead!.id });
    expect(res.body).toMatchObject({ email: 'ada.byron@acme.test', status: 'valid', lead_updated: true });
    const stored = (await server.request('GET', `/api/leads/${lead!.id}`, { key: apiKey })).body.lead;
    expect(stored).toMatchObject({ email: 'ada.byron@acme.test', email_status: 'valid', email_is_role: false });

    const refused = await find(apiKey, { lead_id: withEmail!.id, domain: 'acme.test' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', field: 'lead_id' });
    expect((await server.request('GET', `/api/leads/${withEmail!.id}`, { key: apiKey })).body.lead.email).toBe('grace@elsewhere.test');
  });

  it('refuses bad input naming the field, a missing credit with 402, and a key without leads:validate with 403', async () => {
    const { apiKey, workspaceId, keyWith } = await createTestWorkspace();
    const noDomain = await find(apiKey, { full_name: 'Ada Byron' });
    expect(noDomain.status).toBe(400);
    expect(noDomain.body.field).toBe('domain');
    expect((await find(apiKey, { full_name: 'Ada', domain: 'acme.test' })).body).toMatchObject({
      code: 'validation_failed',
      field: 'full_name',
    });
    expect((await find(apiKey, { full_name: 'Ada Byron', domain: 'https://acme.test/x' })).body.field).toBe('domain');
    expect((await find(await keyWith('read'), { full_name: 'Ada Byron', domain: 'acme.test' })).status).toBe(403);
    await setBalances(workspaceId, { validation: 0 });
    world.reset();
    const broke = await find(apiKey, { full_name: 'Ada Byron', domain: 'acme.test' });
    expect(broke.status).toBe(402);
    expect(broke.body.code).toBe('validation_credits_exhausted');
    expect(world.connections('127.0.0.31').total).toBe(0);
  });
});

describe('POST /api/leads/validate/address', () => {
  const check = (key: string, email: string) => server.request('POST', '/api/leads/validate/address', { key, body: { email } });

  it('answers the result at once for one credit, then reuses it unbilled from the cache', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const before = (await getBalances(workspaceId)).validation;
    const res = await check(apiKey, 'Ada.Byron@acme.test');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({
      email: 'ada.byron@acme.test',
      status: 'valid',
      reason: 'accepted',
      provider: 'other',
      is_role: false,
      is_disposable: false,
    });
    expect((await getBalances(workspaceId)).validation).toBe(before - 1);
    const again = await check(apiKey, 'ada.byron@acme.test');
    expect(again.body.result).toMatchObject({ status: 'valid', reason: 'reused' });
    expect((await getBalances(workspaceId)).validation).toBe(before - 1);
    const throwaway = await check(apiKey, 'temp@mailinator.com');
    expect(throwaway.body.result).toMatchObject({ status: 'disposable', is_disposable: true });
  });

  it('answers 202 with the job to poll when the check outlasts the wait, unbilled while unknown', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const before = (await getBalances(workspaceId)).validation;
    const res = await check(apiKey, 'x@silent.test');
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.job).toMatchObject({ total: 1, status: 'running' });
    const job = await waitForJob(server, apiKey, res.body.job.id);
    expect(job).toMatchObject({ status: 'completed', credits_charged: 0 });
    expect(job.counts.unknown).toBe(1);
    expect((await getBalances(workspaceId)).validation).toBe(before);
  });
});
