import { nowMs } from '../../clock.ts';
import { log } from '../../logger.ts';
import { applyBounceGuard, type inboxesForSending } from '../inboxes/inboxes.service.ts';
import { isSuppressed, suppressAddress } from '../suppressions/suppressions.service.ts';
import { eventScopes, recordOutreachEvent, type OutreachEvent } from '../stats/outreach-stats.service.ts';
import { compose } from './compose.ts';
import { classifySmtpError, transportFor } from './mailer.ts';
import type { MessageDoc } from './message.model.ts';
import { markDeferred, markFailed, markSent } from './messages.service.ts';

type SendingInbox = Awaited<ReturnType<typeof inboxesForSending>>[number];

export type Delivery =
  | { outcome: 'sent'; sentAt: Date }
  | { outcome: 'deferred'; retryAt: Date; error: string }
  | { outcome: 'suppressed' }
  | { outcome: 'bounced'; error: string; code: string | null; inboxPaused: boolean }
  | { outcome: 'failed'; error: string };

/** Attempts at a message before a temporary failure becomes its end, and the waits between them. */
const retryDelaysMs = [5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000];

export interface DeliveryRequest {
  /** The claimed message record. */
  record: MessageDoc;
  inbox: SendingInbox;
  rendered: { subject: string; html: string; text: string };
  replyTo: string | null;
  trackOpens: boolean;
  /** Gives the cap slots back: called when the send did not happen. */
  giveBack: () => Promise<unknown>;
}

const count = (record: MessageDoc, ...events: OutreachEvent[]) => recordOutreachEvent(eventScopes(record), events);

/**
 * Sends a claimed message over SMTP and records what came of it: the
 * do-not-contact list is checked once more right before the SMTP call;
 * a temporary failure gives the cap slots back and is tried again later;
 * a recipient refused at RCPT is a hard bounce (the address is suppressed,
 * the bounce guard looks at the inbox); anything else permanent fails it.
 */
export async function deliver(request: DeliveryRequest): Promise<Delivery> {
  const { record, inbox } = request;
  if (await isSuppressed(record.workspaceId, record.to)) {
    await request.giveBack();
    await markFailed(record._id, 'the address is on the do-not-contact list');
    return { outcome: 'suppressed' };
  }
  try {
    const transport = await transportFor(inbox.id, inbox.transport);
    const info = await transport.sendMail(
      compose({
        recordId: record._id,
        from: inbox.from,
        fromName: inbox.fromName,
        to: record.to,
        replyTo: request.replyTo,
        subject: request.rendered.subject,
        html: request.rendered.html,
        text: request.rendered.text,
        messageId: record.messageId,
        inReplyTo: record.inReplyTo ?? null,
        trackOpens: request.trackOpens,
      }),
    );
    const sentAt = await markSent(record._id, String(info.response ?? ''));
    await count(record, 'sent');
    return { outcome: 'sent', sentAt };
  } catch (error) {
    return failed(request, error);
  }
}

async function failed(request: DeliveryRequest, error: unknown): Promise<Delivery> {
  const { record, inbox } = request;
  const failure = classifySmtpError(error);
  log.warn('outreach send failed', { recordId: record._id, inboxId: inbox.id, kind: failure.kind, code: failure.code, error: failure.message });
  if (failure.kind === 'temporary' && record.attempts <= retryDelaysMs.length) {
    await request.giveBack();
    const retryAt = new Date(nowMs() + retryDelaysMs[record.attempts - 1]!);
    await markDeferred(record._id, retryAt, failure.message);
    return { outcome: 'deferred', retryAt, error: failure.message };
  }
  await markFailed(record._id, failure.message);
  if (failure.kind !== 'rejected') {
    await count(record, 'failed');
    return { outcome: 'failed', error: failure.message };
  }
  // Refused at RCPT: a hard bounce, known at once.
  await suppressAddress(record.workspaceId, record.to, 'hard_bounce', 'smtp_rejection');
  await count(record, 'sent', 'bounced');
  const inboxPaused = await applyBounceGuard(record.workspaceId, inbox.id);
  return { outcome: 'bounced', error: failure.message, code: failure.code, inboxPaused };
}
