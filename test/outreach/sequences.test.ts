import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Campaign } from '../../src/outreach/campaign-record/campaign.model.ts';
import { createOwnerKey, createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();
const path = '/api/outreach/sequences';

const opener = { subject: 'Quick question, {{first_name|there}}', body_html: '<p>Hi {{first_name|there}}, how is {{company}}?</p>' };
const bump = { body_html: '<p>Any thoughts?</p>', wait_days: 3, thread_mode: 'reply' };
const valid = { name: 'Founders EU', steps: [opener, bump] };

const create = (key: string, body: unknown) => server.request('POST', path, { key, body });
const created = async (key: string, body: unknown = valid) => {
  const res = await create(key, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.sequence;
};
/** The field a request is refused for (400), checked to be validation_failed. */
const refusedField = async (key: string, body: unknown) => {
  const res = await create(key, body);
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(res.body.code).toBe('validation_failed');
  return res.body.field as string;
};
const withStep = (index: number, step: Record<string, unknown>) => ({
  name: 'S',
  steps: valid.steps.map((s, i) => (i === index ? { ...s, ...step } : s)),
});

describe('sequences', () => {
  it("creates a sequence (200, defaults filled in) under the credential's brand", async () => {
    const { apiKey, brandId } = await createTestWorkspace();
    const sequence = await created(apiKey);
    expect(sequence).toEqual({
      id: expect.any(String),
      name: 'Founders EU',
      description: null,
      steps: [
        { ...opener, wait_days: 0, thread_mode: 'new', variants: [] },
        { subject: '', ...bump, variants: [] },
      ],
      brand_id: brandId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it("lists the credential's brand by default, one brand or all with brand=", async () => {
    const workspace = await createTestWorkspace();
    const second = (await server.request('POST', '/api/brands', { key: workspace.apiKey, body: { name: 'Second' } })).body.brand.id;
    const bound = (await createOwnerKey(workspace.workspaceId, 'bound', ['read', 'write'], second)).apiKey;
    const mine = await created(workspace.apiKey, { ...valid, name: 'Default brand' });
    const theirs = await created(bound, { ...valid, name: 'Second brand' });
    const explicit = await created(workspace.apiKey, { ...valid, name: 'Asked for', brand_id: second });
    const names = async (query: string, key = workspace.apiKey) =>
      (await server.request('GET', `${path}${query}`, { key })).body.sequences.map((s: { name: string }) => s.name);
    expect(theirs.brand_id).toBe(second);
    expect(await names('')).toEqual([mine.name]);
    expect(await names('', bound)).toEqual([explicit.name, theirs.name]);
    expect(await names('?brand=all')).toEqual([explicit.name, theirs.name, mine.name]);
    expect(await names(`?brand=${workspace.brandId}`, bound)).toEqual([mine.name]);
    const foreign = (await createTestWorkspace()).brandId;
    expect((await server.request('GET', `${path}?brand=${foreign}`, { key: workspace.apiKey })).body).toMatchObject({
      code: 'not_found',
      field: 'brand',
    });
    expect((await create(workspace.apiKey, { ...valid, brand_id: foreign })).body).toMatchObject({ code: 'not_found', field: 'brand_id' });
  });

  it('updates what is given; steps replace them all', async () => {
    const { apiKey } = await createTestWorkspace();
    const sequence = await created(apiKey, { ...valid, description: 'First try' });
    const patch = (id: string, body: unknown) => server.request('PATCH', `${path}/${id}`, { key: apiKey, body });
    const renamed = await patch(sequence.id, { name: 'Renamed', description: null });
    expect(renamed.status).toBe(200);
    expect(renamed.body.sequence).toMatchObject({ name: 'Renamed', description: null, steps: sequence.steps });
    const resteps = await patch(sequence.id, { steps: [{ subject: 'Only one', body_html: 'Plain text body' }] });
    expect(resteps.body.sequence.steps).toEqual([
      { subject: 'Only one', body_html: 'Plain text body', wait_days: 0, thread_mode: 'new', variants: [] },
    ]);
    expect(resteps.body.sequence.name).toBe('Renamed');
    expect((await patch(sequence.id, {})).body).toMatchObject({ code: 'validation_failed', field: 'name' });
    expect((await patch(sequence.id, { steps: [{ ...opener, wait_days: 2 }] })).body.field).toBe('steps.0.wait_days');
    expect((await patch(randomUUID(), { name: 'x' })).status).toBe(404);
    const other = await createTestWorkspace();
    expect((await server.request('PATCH', `${path}/${sequence.id}`, { key: other.apiKey, body: { name: 'x' } })).status).toBe(404);
  });

  it('deletes a sequence, but not while an active campaign uses it (409 naming the campaigns)', async () => {
    const workspace = await createTestWorkspace();
    const used = await created(workspace.apiKey);
    const campaign = (name: string, status: 'active' | 'draft') =>
      Campaign.create({
        workspaceId: workspace.workspaceId,
        brandId: workspace.brandId,
        name,
        status,
        sequenceId: used.id,
        inboxIds: [randomUUID()],
        dailyLimit: 50,
        schedule: { timezone: 'UTC', days: [1, 2, 3, 4, 5], startHour: 9, endHour: 17 },
      });
    await campaign('Spring push', 'active');
    await campaign('Old draft', 'draft');
    const refused = await server.request('DELETE', `${path}/${used.id}`, { key: workspace.apiKey });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conflict');
    expect(refused.body.error).toContain('Spring push');
    expect(refused.body.error).not.toContain('Old draft');

    await Campaign.updateMany({ workspaceId: workspace.workspaceId }, { $set: { status: 'paused' } });
    const deleted = await server.request('DELETE', `${path}/${used.id}`, { key: workspace.apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ ok: true, id: used.id });
    expect((await server.request('DELETE', `${path}/${used.id}`, { key: workspace.apiKey })).status).toBe(404);
    expect((await server.request('GET', path, { key: workspace.apiKey })).body.sequences).toEqual([]);
  });

  it('answers 400 naming the field for every limit', async () => {
    const { apiKey } = await createTestWorkspace();
    const step = { subject: 'Hello', body_html: 'Body' };
    expect(await refusedField(apiKey, { steps: valid.steps })).toBe('name');
    expect(await refusedField(apiKey, { ...valid, name: ' ' })).toBe('name');
    expect(await refusedField(apiKey, { ...valid, name: 'n'.repeat(121) })).toBe('name');
    expect((await create(apiKey, { ...valid, name: 'n'.repeat(120), description: 'd'.repeat(500) })).status).toBe(200);
    expect(await refusedField(apiKey, { ...valid, description: 'd'.repeat(501) })).toBe('description');
    expect(await refusedField(apiKey, { name: 'S', steps: [] })).toBe('steps');
    expect(await refusedField(apiKey, { name: 'S', steps: [step, ...Array.from({ length: 10 }, () => ({ ...step, wait_days: 1 }))] })).toBe(
      'steps',
    );
    expect(
      (await create(apiKey, { name: 'S', steps: [step, ...Array.from({ length: 9 }, () => ({ ...step, wait_days: 90 }))] })).status,
    ).toBe(200);
    expect(await refusedField(apiKey, withStep(0, { subject: 's'.repeat(301) }))).toBe('steps.0.subject');
    expect(await refusedField(apiKey, withStep(0, { subject: '' }))).toBe('steps.0.subject');
    expect(await refusedField(apiKey, withStep(0, { subject: 'Two\nlines' }))).toBe('steps.0.subject');
    expect(await refusedField(apiKey, withStep(1, { subject: 'Not empty' }))).toBe('steps.1.subject');
    expect(await refusedField(apiKey, withStep(1, { thread_mode: 'new' }))).toBe('steps.1.subject');
    expect(await refusedField(apiKey, { name: 'S', steps: [{ subject: 'x' }] })).toBe('steps.0.body_html');
    expect(await refusedField(apiKey, withStep(1, { body_html: '' }))).toBe('steps.1.body_html');
    expect(await refusedField(apiKey, withStep(0, { wait_days: 1 }))).toBe('steps.0.wait_days');
    expect(await refusedField(apiKey, withStep(0, { thread_mode: 'reply', subject: '' }))).toBe('steps.0.thread_mode');
    expect(await refusedField(apiKey, withStep(1, { thread_mode: 'forward' }))).toBe('steps.1.thread_mode');
    const three = { name: 'S', steps: [step, { ...step, wait_days: 2 }, { ...step, wait_days: 91 }] };
    expect(await refusedField(apiKey, three)).toBe('steps.2.wait_days');
    expect(await refusedField(apiKey, { ...three, steps: [step, step, { ...step, wait_days: -1 }] })).toBe('steps.2.wait_days');
    expect(await refusedField(apiKey, { ...three, steps: [step, step, { ...step, wait_days: 1.5 }] })).toBe('steps.2.wait_days');
    expect(await refusedField(apiKey, withStep(0, { variants: Array.from({ length: 5 }, () => step) }))).toBe('steps.0.variants');
    expect(await refusedField(apiKey, withStep(0, { variants: [step, { subject: '', body_html: 'x' }] }))).toBe(
      'steps.0.variants.1.subject',
    );
    expect(await refusedField(apiKey, withStep(1, { variants: [{ subject: 'x', body_html: 'y' }] }))).toBe('steps.1.variants.0.subject');
    expect(await refusedField(apiKey, withStep(0, { variants: [{ subject: 'x' }] }))).toBe('steps.0.variants.0.body_html');
    expect(await refusedField(apiKey, withStep(1, { colour: 'red' }))).toBe('steps.1.colour');
  });

  it('stores bodies sanitized: <p>, <br>, <strong> and http(s)/mailto links only', async () => {
    const { apiKey } = await createTestWorkspace();
    const dirty =
      '<h1>Hello</h1><p onclick="steal()" style="color:red">Hi <strong>there</strong><br><em>friend</em></p>' +
      '<script>alert(1)</script><img src="x" onerror="alert(1)">' +
      '<a href="javascript:alert(1)">bad</a> <a href="JaVaScRiPt:alert(1)">worse</a> <a href="data:text/html,x">data</a> <a href="/relative">rel</a> ' +
      '<a href="https://acme.test/?a=1&b=2" target="_blank" onmouseover="x()">site</a> <a href="mailto:ada@acme.test">mail</a> <a href="http://acme.test">plain</a>';
    const sequence = await created(apiKey, withStep(0, { body_html: dirty }));
    expect(sequence.steps[0].body_html).toBe(
      'Hello<p>Hi <strong>there</strong><br />friend</p>' +
        '<a>bad</a> <a>worse</a> <a>data</a> <a>rel</a> ' +
        '<a href="https://acme.test/?a=1&amp;b=2">site</a> <a href="mailto:ada@acme.test">mail</a> <a href="http://acme.test">plain</a>',
    );
    // Nothing but scripts or markup: no text left to send.
    expect(await refusedField(apiKey, withStep(0, { body_html: '<script>alert(1)</script><img src=x>' }))).toBe('steps.0.body_html');
  });

  it('accepts only the five merge variables, with optional fallbacks, in subjects and bodies', async () => {
    const { apiKey } = await createTestWorkspace();
    const every = '{{first_name}} {{company|your team}} {{title}} {{domain}} {{ location | near you }} {{first_name|}}';
    expect((await create(apiKey, withStep(0, { subject: every, body_html: every }))).status).toBe(200);
    expect(await refusedField(apiKey, withStep(1, { body_html: 'Hi {{last_name}}' }))).toBe('steps.1.body_html');
    expect(await refusedField(apiKey, withStep(0, { subject: 'Hi {{first_name' }))).toBe('steps.0.subject');
    expect(await refusedField(apiKey, withStep(0, { subject: 'Hi first_name}}' }))).toBe('steps.0.subject');
    expect(await refusedField(apiKey, withStep(0, { subject: 'Hi {{First_Name}}' }))).toBe('steps.0.subject');
    expect(await refusedField(apiKey, withStep(0, { body_html: 'Hi {{first_name|a|b}}' }))).toBe('steps.0.body_html');
    expect(await refusedField(apiKey, withStep(0, { body_html: 'Hi {{}}' }))).toBe('steps.0.body_html');
    expect(await refusedField(apiKey, withStep(0, { variants: [{ subject: 'ok', body_html: '{{unknown|x}}' }] }))).toBe(
      'steps.0.variants.0.body_html',
    );
    const res = await create(apiKey, withStep(1, { body_html: 'Hi {{last_name}}' }));
    expect(res.body.error).toContain('unknown merge variable {{last_name}}');
  });

  it('lets only Pro and Business use A/B variants (403 plan_required otherwise)', async () => {
    const withVariants = withStep(0, { variants: [{ subject: 'Other angle', body_html: '<p>Version B</p>' }] });
    for (const plan of ['free', 'starter'] as const) {
      const { apiKey } = await createTestWorkspace(plan);
      const refused = await create(apiKey, withVariants);
      expect(refused.status, plan).toBe(403);
      expect(refused.body).toMatchObject({ code: 'plan_required', plan, required: 'pro' });
      const plain = await created(apiKey);
      const patched = await server.request('PATCH', `${path}/${plain.id}`, { key: apiKey, body: { steps: withVariants.steps } });
      expect(patched.body).toMatchObject({ code: 'plan_required' });
    }
    for (const plan of ['pro', 'business'] as const) {
      const sequence = await created((await createTestWorkspace(plan)).apiKey, withVariants);
      expect(sequence.steps[0].variants).toEqual([{ subject: 'Other angle', body_html: '<p>Version B</p>' }]);
    }
  });
});
