/** A reply's conversation (its campaign's messages to the lead, what came back, the answers sent) and answering it in place. */
import type { z } from 'zod';
import type { answerReplyInput, conversationMessage, replyThreadOutput } from '../../../schema/outreach/replies.ts';
import type { outreachMessage } from '../../../schema/outreach/send.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { workspaceMeetsPlan } from '../../workspaces/index.ts';
import { sendThreadAnswer } from '../delivery/direct-send.ts';
import type { MessageDoc } from '../delivery/message.model.ts';
import { answersTo, campaignMessagesTo, findMessage } from '../delivery/messages.service.ts';
import { inboxesForSending } from '../inboxes/inbox-sending.service.ts';
import { toReply } from './list-replies.service.ts';
import { Reply, type ReplyDoc } from './reply.model.ts';

type ConversationMessage = z.infer<typeof conversationMessage>;

async function findReply(workspaceId: string, id: string): Promise<ReplyDoc> {
  const reply = await Reply.findOne({ _id: id, workspaceId }).lean<ReplyDoc>();
  if (!reply) throw notFound('Reply');
  return reply;
}

/**
 * The thread a reply belongs to, as stored: with a campaign and a lead, every message of that campaign to the lead
 * (its step records, by primary key), everything that came back from the lead to it, and the answers sent to those;
 * for mail that matched no campaign, the message of ours it answers (if any), itself and its answers. Oldest first.
 */
async function threadOf(reply: ReplyDoc): Promise<Array<{ at: Date; out?: MessageDoc; in?: ReplyDoc }>> {
  const linked = reply.campaignId && reply.leadId;
  const [sent, received] = linked
    ? await Promise.all([
        campaignMessagesTo(reply.campaignId!, reply.leadId!),
        Reply.find({ workspaceId: reply.workspaceId, campaignId: reply.campaignId, leadId: reply.leadId }).lean<ReplyDoc[]>(),
      ])
    : [reply.messageRecordId ? [await findMessage(reply.messageRecordId)].filter((m): m is MessageDoc => m !== null) : [], [reply]];
  const answers = await answersTo(received.map((one) => one._id));
  const out = [...sent, ...answers].filter((message) => message.status === 'sent' && message.sentAt);
  return [
    ...out.map((message) => ({ at: message.sentAt!, out: message })),
    ...received.map((one) => ({ at: one.receivedAt, in: one })),
  ].sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** A reply and its conversation (404 for another workspace's); sentiment fields as the reply list gives them. */
export async function replyConversation(workspaceId: string, id: string): Promise<z.infer<typeof replyThreadOutput>> {
  const reply = await findReply(workspaceId, id);
  const [thread, withSentiment] = await Promise.all([threadOf(reply), workspaceMeetsPlan(workspaceId, 'pro')]);
  const inboxIds = thread.map((item) => item.out?.inboxId ?? item.in!.inboxId);
  const addresses = new Map((await inboxesForSending(workspaceId, inboxIds)).map((inbox) => [inbox.id, inbox.from]));
  const address = (inboxId: string) => addresses.get(inboxId) ?? '';
  return {
    reply: toReply(reply, withSentiment),
    thread: thread.map(({ at, out, in: back }): ConversationMessage => {
      if (out) {
        return {
          direction: 'out',
          kind: out.answersReplyId ? 'answer' : 'step',
          message_id: out.messageId,
          subject: out.subject,
          from: address(out.inboxId),
          to: out.to,
          at: at.toISOString(),
          body_text: out.bodyText ?? '',
        };
      }
      return {
        direction: 'in',
        kind: back!.kind,
        message_id: back!.messageId ?? null,
        subject: back!.subject,
        from: back!.fromEmail,
        to: address(back!.inboxId),
        at: at.toISOString(),
        body_text: back!.bodyText,
      };
    }),
  };
}

/** A subject answered: one `Re: ` before it, never stacked (`Re: Re:`, `AW: `, `RE:` taken off first). */
export const answerSubject = (subject: string) => `Re: ${subject.replace(/^(\s*(re|aw|sv|antw)\s*(\[\d+\])?\s*:\s*)+/i, '').trim()}`;

/**
 * Answers a reply in its thread: from the inbox it arrived at, to its sender, `Re: ` its subject, In-Reply-To its
 * Message-ID and References the thread's, under every rule of a direct send. Only a person's reply is answered: a
 * bounce or an automatic reply is 409.
 */
export async function answerReply(workspaceId: string, input: z.infer<typeof answerReplyInput>): Promise<z.infer<typeof outreachMessage>> {
  const reply = await findReply(workspaceId, input.id);
  if (reply.kind !== 'reply')
    throw new AppError('conflict', `Only a reply can be answered: this is ${reply.kind === 'bounce' ? 'a bounce' : 'an automatic reply'}`, {
      field: 'id',
      kind: reply.kind,
    });
  if (!reply.fromEmail) throw new AppError('conflict', 'The reply has no sender address to answer', { field: 'id' });
  const thread = await threadOf(reply);
  const references = thread.flatMap((item) => item.out?.messageId ?? item.in?.messageId ?? []);
  if (reply.messageId && !references.includes(reply.messageId)) references.push(reply.messageId);
  return sendThreadAnswer(workspaceId, {
    inboxId: reply.inboxId,
    to: reply.fromEmail,
    leadId: reply.leadId ?? null,
    subject: answerSubject(reply.subject),
    bodyHtml: input.body_html,
    bodyText: input.body_text,
    thread: { replyId: reply._id, inReplyTo: reply.messageId ?? null, references },
    field: 'id',
  });
}
