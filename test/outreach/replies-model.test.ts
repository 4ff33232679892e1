import mongoose from 'mongoose';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { analyzePendingReplies } from '../../src/outreach/replies/analysis.service.ts';
import { readMailboxes } from '../../src/outreach/replies/read-mailboxes.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { useImapServer } from '../support/imap-server.ts';
import { useScriptedModel } from '../support/openai-server.ts';
import { createInbox, outreachEnv } from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

/** Reply sentiment from an OpenAI-compatible model (a scripted server on 127.0.0.1, reached through the outbound guard). */
const env: Record<string, string> = { ...outreachEnv };
const model = useScriptedModel(env);
const server = useApiServer(env);
const smtp = useSmtpServer({ sender: 'secret' });
// A mailbox per test: a new inbox reads its whole mailbox, and each reply it stores waits for analysis.
const imap = useImapServer({ one: 'secret', two: 'secret', three: 'secret' });
const clock = useTestClock();

beforeEach(() => model.reset());
afterAll(closeTransports);

const replies = () => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>('outreach_replies');
/** One reply in `user`'s mailbox, read for a Pro workspace's inbox; returns its stored id. */
async function storedReply(user: string, body: string): Promise<{ id: string; key: string }> {
  const { apiKey: key } = await createTestWorkspace('pro');
  const inbox = await createInbox(server, key, smtp, {
    from: `${user}@acme.test`,
    imap: { host: imap.host, port: imap.port, secure: false, user, password: 'secret' },
  });
  await imap.append(
    user,
    ['From: Lee <lee@x.test>', `To: ${user}@acme.test`, 'Subject: Re: Hello', `Message-ID: <${user}@x.test>`, '', body, ''].join('\r\n'),
  );
  await readMailboxes();
  const reply = await replies().findOne({ inboxId: inbox.id });
  return { id: reply!._id, key };
}

const answer = (sentiment: string, intent = 'wants a call') => ({
  content: JSON.stringify({ sentiment, sentiment_score: 0.4, intent, summary: 'Short summary.' }),
});

describe('reply sentiment from a model', () => {
  it("stores the model's structured answer, asked with a JSON schema", async () => {
    const { id, key } = await storedReply('one', 'Interesting, but we already work with a competitor.');
    model.script(answer('objection', 'uses a competitor'));
    expect(await analyzePendingReplies()).toBeGreaterThanOrEqual(1);
    expect(await replies().findOne({ _id: id })).toMatchObject({
      sentiment: 'objection',
      sentimentScore: 0.4,
      intent: 'uses a competitor',
      summary: 'Short summary.',
      analyzedBy: 'model:test-model',
    });
    expect(model.requests[0]).toMatchObject({ model: 'test-model', response_format: { type: 'json_schema' } });
    expect(model.requests[0]!.messages.at(-1)!.content).toContain('already work with a competitor');
    const listed = await server.request('GET', '/api/outreach/replies', { key });
    expect(listed.body.replies[0]).toMatchObject({ sentiment: 'objection', intent: 'uses a competitor' });
  });

  it('asks again once after an unusable answer, then falls back to the heuristic classifier', async () => {
    const { id } = await storedReply('two', 'Sounds good, let us talk next week.');
    model.script({ content: 'not json' }, { content: JSON.stringify({ sentiment: 'delighted' }) });
    await analyzePendingReplies();
    expect(model.requests).toHaveLength(2);
    expect(await replies().findOne({ _id: id })).toMatchObject({ sentiment: 'positive', analyzedBy: 'heuristic' });
  });

  it('keeps a reply stored but unanalysed while the model is down, and analyses it once it is back', async () => {
    const { id, key } = await storedReply('three', 'Please tell me more about pricing.');
    model.fallback = { status: 503 };
    await analyzePendingReplies();
    expect(await replies().findOne({ _id: id })).toMatchObject({ analyzedAt: null });
    const listed = await server.request('GET', '/api/outreach/replies', { key });
    expect(listed.body.replies).toEqual([expect.objectContaining({ id, sentiment: null, analyzed_at: null })]);

    // Not asked again before its retry time; asked and answered after it.
    const asked = model.requests.length;
    await analyzePendingReplies();
    expect(model.requests).toHaveLength(asked);
    model.script(answer('positive'));
    clock.advance(61_000);
    await analyzePendingReplies();
    expect(await replies().findOne({ _id: id })).toMatchObject({ sentiment: 'positive', analyzedBy: 'model:test-model' });
  });
});
