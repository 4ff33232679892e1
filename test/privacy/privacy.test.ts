import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { readMailboxes } from '../../src/outreach/replies/read-mailboxes.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useImapServer } from '../support/imap-server.ts';
import { importLeads } from '../support/leads.ts';
import { useMailWorld } from '../support/mail-world.ts';
import { createCampaign, createInbox, createSequence, enroll, mailTo, updateCampaign } from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

/**
 * Privacy requests over real parts: a campaign sends through a real SMTP server, the reply is read back from a real
 * IMAP server (Dovecot), the address is validated against loopback DNS and SMTP; then it is exported and erased.
 */
const mail = useMailWorld({ 'navy.test': { ip: '127.0.0.61', mailboxes: { grace: 'accept', alan: 'accept' } } });
const env: Record<string, string> = {};
beforeAll(() => Object.assign(env, mail.env, { OUTBOUND_ALLOWED_ADDRESSES: `127.0.0.1,${mail.env.OUTBOUND_ALLOWED_ADDRESSES}` }));
const server = useApiServer(env, { worker: true });
const smtp = useSmtpServer({ sender: 'secret' });
const imap = useImapServer({ ada: 'secret', bob: 'secret' });
afterAll(closeTransports);

const collection = (name: string) => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>(name);

/** A workspace that wrote to Grace and Alan, got Grace's reply, validated both, and ran an agent whose leads.csv lists both. */
async function workspaceThatKnowsGrace(imapUser: string) {
  const { apiKey: key, workspaceId } = await createTestWorkspace('starter');
  const inbox = await createInbox(server, key, smtp, {
    from: 'ada@acme.test',
    imap: { host: imap.host, port: imap.port, secure: false, user: imapUser, password: 'secret' },
  });
  const sequence = await createSequence(server, key, [{ subject: 'Hello', body_html: '<p>Hi there</p>' }]);
  const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
  const leads = await importLeads(server, key, [
    { email: 'Grace@Navy.test', full_name: 'Grace Hopper' },
    { email: 'alan@navy.test', full_name: 'Alan Turing' },
  ]);
  await enroll(
    server,
    key,
    campaign.id,
    leads.map((lead) => lead.id),
  );
  await updateCampaign(server, key, { id: campaign.id, status: 'active' });
  await runOutreachPass();
  // The envelope's domain is lower-cased on the way.
  const original = mailTo(smtp, 'Grace@navy.test')[0]!.parsed.messageId!;
  await imap.append(
    imapUser,
    [
      'From: Grace Hopper <grace@navy.test>',
      'To: ada@acme.test',
      'Subject: Re: Hello',
      'Message-ID: <reply-grace@navy.test>',
      `In-Reply-To: ${original}`,
      'Date: Mon, 23 Nov 2026 10:00:00 +0000',
      '',
      'Please take me off your list.',
      '',
    ].join('\r\n'),
  );
  expect((await readMailboxes())[inbox.id]).toEqual({ stored: 1, alreadyStored: 0 });
  for (const email of ['grace@navy.test', 'alan@navy.test'])
    expect((await server.request('POST', '/api/leads/validate/address', { key, body: { email } })).body.result.status).toBe('valid');
  // An agent run's file, as a finished run stores it.
  await collection('agent_artifacts').insertOne({
    _id: `artifact-${workspaceId}`,
    runId: `run-${workspaceId}`,
    workspaceId,
    name: 'leads.csv',
    mimeType: 'text/csv',
    rowCount: 2,
    sizeBytes: 0,
    previewJson: JSON.stringify({
      columns: ['full_name', 'email'],
      rows: [
        { full_name: 'Grace Hopper', email: 'grace@navy.test' },
        { full_name: 'Alan Turing', email: 'alan@navy.test' },
      ],
    }),
    content: 'full_name,email\nGrace Hopper,GRACE@navy.test\nAlan Turing,alan@navy.test\n',
    createdAt: new Date(),
  });
  return { key, workspaceId, leads, campaign };
}

/** A lead's activity as the API lists it (a page holds all of it here). */
async function activityOf(key: string, leadId: string) {
  const res = await server.request('GET', `/api/leads/${leadId}/activity?limit=200`, { key });
  expect(res.status).toBe(200);
  return res.body.activity as Array<{ id: string; type: string }>;
}

describe('privacy requests', () => {
  it('exports everything held about an address, in any case, and audits it without the address', async () => {
    const { key, leads } = await workspaceThatKnowsGrace('ada');
    const res = await server.request('POST', '/api/privacy/export', { key, body: { email: 'GRACE@navy.test' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.email).toBe('grace@navy.test');
    expect(res.body.leads).toEqual([expect.objectContaining({ id: leads[0]!.id, email: 'Grace@Navy.test', email_status: null })]);
    expect(res.body.messages).toEqual([
      expect.objectContaining({ to: 'Grace@Navy.test', subject: 'Hello', status: 'sent', lead_id: leads[0]!.id }),
    ]);
    expect(res.body.replies).toEqual([
      expect.objectContaining({ from_email: 'grace@navy.test', body_text: 'Please take me off your list.' }),
    ]);
    expect(res.body.validation_results).toEqual([expect.objectContaining({ email: 'grace@navy.test', status: 'valid' })]);
    // Her lead's story: created, enrolled, the message sent, her reply.
    expect(res.body.activity.map((entry: { type: string }) => entry.type)).toEqual(
      expect.arrayContaining(['lead.created', 'outreach.enrolled', 'outreach.email.sent', 'outreach.reply.received']),
    );
    expect(res.body.activity.every((entry: { id: string }) => entry.id.length > 0)).toBe(true);
    expect(res.body.activity).toEqual((await activityOf(key, leads[0]!.id)).map((entry) => expect.objectContaining(entry)));
    expect(res.body.suppressions).toEqual([]);
    expect(JSON.stringify(res.body)).not.toContain('alan@navy.test');

    const audit = await server.request('GET', '/api/privacy/requests', { key });
    expect(audit.body.requests).toEqual([
      {
        id: expect.any(String),
        kind: 'export',
        user_id: expect.any(String),
        key_id: expect.any(String),
        counts: { leads: 1, messages: 1, replies: 1, activity: res.body.activity.length, validation_results: 1, suppressions: 0 },
        created_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(audit.body).toLowerCase()).not.toContain('grace');
  });

  it('erases every record naming the address, keeps the statistics, and never contacts it again', async () => {
    const { key, workspaceId, leads, campaign } = await workspaceThatKnowsGrace('bob');
    const statsBefore = (await server.request('GET', '/api/outreach/stats', { key })).body.totals;
    expect(statsBefore.sent14d).toBe(2);
    // A CSV import's rejected rows (one naming her, one Alan) and a click of her message, as the flows store them.
    await collection('lead_imports').insertOne({ _id: `import-${workspaceId}` as never, workspaceId, name: 'CRM', status: 'completed' });
    await collection('lead_import_rejections').insertMany([
      {
        _id: `import-${workspaceId}:1` as never,
        importId: `import-${workspaceId}`,
        row: 1,
        cells: ['Grace', ' GRACE@navy.test '],
        error: 'x',
      },
      { _id: `import-${workspaceId}:2` as never, importId: `import-${workspaceId}`, row: 2, cells: ['Alan', 'alan@navy.test'], error: 'x' },
    ]);
    await collection('outreach_clicks').insertOne({
      _id: `click-${workspaceId}` as never,
      workspaceId,
      leadId: leads[0]!.id,
      url: 'https://x.test/?e=grace',
    });
    // An event naming her still in the outbox (a subscriber failed on it: handed on again in a minute).
    await collection('events').insertOne({
      _id: `event-${workspaceId}`,
      workspaceId,
      type: 'outreach.reply.received',
      data: { from_email: 'Grace@navy.test', campaign_id: campaign.id },
      dueAt: new Date(Date.now() + 60_000),
      tries: 1,
      createdAt: new Date(),
    });
    const types = (await activityOf(key, leads[0]!.id)).map((entry) => entry.type);
    expect(types).toEqual(expect.arrayContaining(['lead.created', 'outreach.enrolled', 'outreach.email.sent']));
    const activity = types.length;

    const res = await server.request('POST', '/api/privacy/erase', { key, body: { email: 'grace@NAVY.test' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      erased: { leads: 1, messages: 1, replies: 1, activity, validation_results: 1, artifact_rows: 1 },
      suppressed: true,
    });
    // Nothing names her any more, in any collection of the workspace's; Alan's records stay.
    for (const name of ['leads', 'outreach_messages', 'outreach_replies', 'validation_results', 'agent_artifacts', 'events']) {
      const docs = await collection(name).find({ workspaceId }).toArray();
      expect(JSON.stringify(docs).toLowerCase(), name).not.toContain('grace@navy.test');
    }
    expect(await collection('lead_activity').countDocuments({ leadId: leads[0]!.id })).toBe(0);
    expect(await collection('outreach_clicks').countDocuments({ workspaceId })).toBe(0);
    const rows = await collection('lead_import_rejections')
      .find({ importId: `import-${workspaceId}` })
      .toArray();
    expect(rows.map((row) => row.row)).toEqual([2]);
    expect((await server.request('GET', `/api/leads/${leads[1]!.id}`, { key })).status).toBe(200);
    expect((await activityOf(key, leads[1]!.id)).length).toBeGreaterThan(0);
    const artifact = await collection('agent_artifacts').findOne({ workspaceId });
    expect(artifact).toMatchObject({ content: 'full_name,email\nAlan Turing,alan@navy.test\n', rowCount: 1 });
    expect(await collection('validation_results').countDocuments({ workspaceId, address: 'alan@navy.test' })).toBe(1);
    expect((await server.request('GET', '/api/outreach/stats', { key })).body.totals).toEqual(statsBefore);
    expect((await server.request('GET', `/api/outreach/campaigns/${campaign.id}`, { key })).status).toBe(200);

    // On the do-not-contact list (source erasure): imported again, she is never written to.
    const list = await server.request('GET', '/api/outreach/suppressions?q=grace', { key });
    expect(list.body.suppressions).toEqual([expect.objectContaining({ email: 'grace@navy.test', source: 'erasure' })]);
    const [again] = await importLeads(server, key, [{ email: 'grace@navy.test' }]);
    const sent = await server.request('POST', '/api/outreach/send', {
      key,
      body: {
        inbox_id: (await server.request('GET', '/api/outreach/inboxes', { key })).body.inboxes[0].id,
        lead_id: again!.id,
        subject: 'Hi',
        body_html: '<p>Hi</p>',
      },
    });
    expect(sent.status).toBe(422);
    expect(sent.body.code).toBe('suppressed');

    // Asked again: nothing left but the lead imported since (and its creation); audited both times, never with the address.
    const twice = await server.request('POST', '/api/privacy/erase', { key, body: { email: 'grace@navy.test' } });
    expect(twice.body.erased).toEqual({ leads: 1, messages: 0, replies: 0, activity: 1, validation_results: 0, artifact_rows: 0 });
    const audit = (await server.request('GET', '/api/privacy/requests', { key })).body.requests;
    expect(audit.map((r: { kind: string }) => r.kind)).toEqual(['erase', 'erase']);
    expect(audit[1].counts).toEqual({ leads: 1, messages: 1, replies: 1, activity, validation_results: 1, artifact_rows: 1 });
    expect(JSON.stringify(audit).toLowerCase()).not.toContain('grace');
  });

  it('needs full access (*) to erase, and read to export', async () => {
    const { keyWith } = await createTestWorkspace();
    const write = await keyWith('read', 'write', 'outreach:send');
    const erase = await server.request('POST', '/api/privacy/erase', { key: write, body: { email: 'x@navy.test' } });
    expect(erase.status).toBe(403);
    expect(erase.body).toMatchObject({ code: 'missing_permission', permission: '*' });
    expect(
      (await server.request('POST', '/api/privacy/export', { key: await keyWith('write'), body: { email: 'x@navy.test' } })).status,
    ).toBe(403);
    expect((await server.request('POST', '/api/privacy/export', { key: write, body: { email: 'not an address' } })).body.field).toBe(
      'email',
    );
  });
});
