import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { outreachMessage, sendMessageInput } from '../../../schema/outreach/send.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { emailStatusOfAddress, leadsForOutreach, markContacted, type OutreachLead } from '../../leads/index.ts';
import { inboxForSending, type SendingInbox } from '../inboxes/inbox-sending.service.ts';
import { plainText, sanitizeBody } from '../../../schema/outreach/sequence-html.ts';
import { isSuppressed, suppressedAmong } from '../suppressions/suppressions.service.ts';
import type { DeliveryRequest } from './claim.ts';
import type { MessageDoc } from './message.model.ts';
import { claimMessage, findMessage, markFailed, newMessageId } from './messages.service.ts';
import { answer, type Delivery } from './send.ts';
import { SendHold } from './send-holds.ts';
import { settleAnswers } from './settle.ts';
import { takeInboxSlot } from '../counters/send-slots.ts';

type Input = z.infer<typeof sendMessageInput>;
type MessageOut = z.infer<typeof outreachMessage>;

const toMessage = (doc: MessageDoc): MessageOut => ({
  id: doc._id,
  status: doc.status === 'sent' ? 'sent' : 'failed',
  message_id: doc.messageId,
  to: doc.to,
  subject: doc.subject,
  inbox_id: doc.inboxId,
  lead_id: doc.leadId ?? null,
  sent_at: doc.sentAt?.toISOString() ?? null,
  created_at: doc.createdAt.toISOString(),
});

/** An address validation found `invalid` (no mailbox, no mail host, bad syntax) is not written to. */
const invalidEmail = (field: string) =>
  new AppError('invalid_email', `${field}: the address was validated invalid (email_status invalid): nothing is sent to it`, {
    field,
    emailStatus: 'invalid',
  });

/** Where a direct send goes: the lead's address (the lead must be writable) or the one given (not a lead's validated invalid). */
async function recipient(workspaceId: string, input: Input): Promise<{ to: string; leadId: string | null }> {
  if (!input.lead_id) {
    if ((await emailStatusOfAddress(workspaceId, input.to!)) === 'invalid') throw invalidEmail('to');
    return { to: input.to!, leadId: null };
  }
  const lead = (await leadsForOutreach(workspaceId, [input.lead_id])).get(input.lead_id);
  if (!lead) throw notFound('Lead', 'lead_id');
  if (!lead.email) throw new AppError('validation_failed', 'lead_id: the lead has no email address', { field: 'lead_id' });
  checkLead(lead, 'lead_id');
  return { to: lead.email, leadId: lead.id };
}

/** A lead that unsubscribed or whose address was validated invalid is not written to. */
function checkLead(lead: OutreachLead, field: string): void {
  if (lead.unsubscribed) throw new AppError('suppressed', 'The lead unsubscribed: nothing is sent to it', { field });
  if (lead.emailStatus === 'invalid') throw invalidEmail(field);
}

/** The inbox a direct send goes from (404 naming `field` when not the workspace's). */
const directInbox = (workspaceId: string, inboxId: string, field: string) =>
  inboxForSending(workspaceId, inboxId).catch(() => {
    throw notFound('Inbox', field);
  });

/** What a direct send carries, however it was asked for: from an inbox to an address (a lead's, or none). */
interface DirectSend {
  inbox: SendingInbox;
  /** The fields errors name: the inbox's and the recipient's. */
  fields: { inbox: string; to: string };
  to: string;
  leadId: string | null;
  subject: string;
  html: string;
  text: string;
  /** An answer to a reply: the reply, and the Message-IDs it goes under. */
  thread?: { replyId: string; inReplyTo: string | null; references: string[] };
}

/** One message under `hold`: the list read for it, sent, its outcome written and counted. */
async function deliver(request: DeliveryRequest, hold: SendHold): Promise<Delivery> {
  const listed = await suppressedAmong(request.record.workspaceId, [request.record.to]);
  const { answer: answered, written } = await answer(request, listed);
  await written;
  if (answered.giveBack) hold.unuse(request.counts);
  const [delivery] = await settleAnswers(hold, [answered]);
  return delivery!;
}

/**
 * One message now, under the same rules as a campaign step: the address
 * must not be on the do-not-contact list (422 suppressed) nor validated
 * invalid (422 invalid_email), the inbox must
 * not be paused (409 inbox_paused) and must have a free slot under its cap
 * (409 inbox_cap_reached); it is claimed before the SMTP call, and a
 * refusal is answered (422 message_rejected, a hard bounce suppressing the
 * address) or, for a temporary failure, 503 smtp_unavailable with the slot
 * given back.
 */
export async function sendOneMessage(workspaceId: string, input: Input): Promise<MessageOut> {
  const inboxField = input.inbox_id ? 'inbox_id' : 'smtp_config_id';
  const inbox = await directInbox(workspaceId, (input.inbox_id ?? input.smtp_config_id)!, inboxField);
  const { to, leadId } = await recipient(workspaceId, input);
  const html = sanitizeBody(input.body_html);
  return sendDirect(workspaceId, {
    inbox,
    fields: { inbox: inboxField, to: input.to ? 'to' : 'lead_id' },
    to,
    leadId,
    subject: input.subject,
    html,
    text: plainText(html),
  });
}

/** What an answer to a reply needs: the inbox it arrived at, its sender (and lead), and the thread it goes under. */
export interface ThreadAnswer {
  inboxId: string;
  to: string;
  leadId: string | null;
  subject: string;
  bodyHtml: string;
  bodyText?: string;
  thread: { replyId: string; inReplyTo: string | null; references: string[] };
  /** The field errors name (the reply's id). */
  field: string;
}

/** An answer to a reply, sent as a direct send is (the same rules, cap and outcomes), under the reply's thread. */
export async function sendThreadAnswer(workspaceId: string, answer: ThreadAnswer): Promise<MessageOut> {
  const inbox = await directInbox(workspaceId, answer.inboxId, answer.field);
  const lead = answer.leadId ? (await leadsForOutreach(workspaceId, [answer.leadId])).get(answer.leadId) : undefined;
  if (lead) checkLead(lead, answer.field);
  if ((await emailStatusOfAddress(workspaceId, answer.to)) === 'invalid') throw invalidEmail(answer.field);
  const html = sanitizeBody(answer.bodyHtml);
  return sendDirect(workspaceId, {
    inbox,
    fields: { inbox: answer.field, to: answer.field },
    to: answer.to,
    leadId: lead?.id ?? null,
    subject: answer.subject,
    html,
    text: answer.bodyText ?? plainText(html),
    thread: answer.thread,
  });
}

async function sendDirect(workspaceId: string, send: DirectSend): Promise<MessageOut> {
  const { inbox, to, leadId } = send;
  if (await isSuppressed(workspaceId, to))
    throw new AppError('suppressed', 'The address is on the do-not-contact list', { field: send.fields.to });
  if (inbox.pausedAt)
    throw new AppError('inbox_paused', 'The inbox is paused (the bounce guard paused it): resume it with PATCH paused: false', {
      field: send.fields.inbox,
    });
  const recordId = randomUUID();
  // The slot is held for the message (send-holds.ts): given back if it does not go out, even if this process dies.
  const hold = await SendHold.open([recordId]);
  const slot = await takeInboxSlot(inbox.id, inbox.cap, hold.id);
  hold.took(slot);
  if (!slot) {
    await hold.close();
    throw new AppError('inbox_cap_reached', `The inbox sent its cap of ${inbox.cap} in the last 24 hours`, {
      field: send.fields.inbox,
      cap: inbox.cap,
    });
  }

  const record = (await claimMessage({
    _id: recordId,
    workspaceId,
    brandId: inbox.brandId,
    inboxId: inbox.id,
    leadId,
    to,
    subject: send.subject,
    messageId: newMessageId(recordId, inbox.from),
    bodyText: send.text,
    ...(send.thread && {
      inReplyTo: send.thread.inReplyTo,
      references: send.thread.references,
      answersReplyId: send.thread.replyId,
    }),
    hold: hold.id,
  }))!;
  hold.use([slot.count]);
  const delivery = await deliver(
    {
      record,
      inbox,
      rendered: { subject: send.subject, html: send.html, text: send.text },
      replyTo: null,
      trackOpens: false,
      trackClicks: false,
      counts: [slot.count],
    },
    hold,
  );
  await hold.close();
  switch (delivery.outcome) {
    case 'sent':
      if (leadId) await markContacted(leadId);
      return toMessage((await findMessage(recordId))!);
    case 'deferred':
      // A direct send is not tried again later: the caller decides.
      await markFailed(recordId, delivery.error);
      throw new AppError('smtp_unavailable', `The SMTP server could not take the message now: ${delivery.error}`, { retryAfter: 60 });
    case 'suppressed':
      throw new AppError('suppressed', 'The address is on the do-not-contact list');
    case 'bounced':
      throw new AppError(
        'message_rejected',
        `The SMTP server refused the recipient for good (the address is now suppressed): ${delivery.error}`,
        { smtpCode: delivery.code },
      );
    case 'failed':
      throw new AppError('message_rejected', `The SMTP server refused the message: ${delivery.error}`);
  }
}
