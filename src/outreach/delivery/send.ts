/**
 * The send stage: a claimed message over SMTP, judged (sent, to retry, refused for good, a hard bounce) and its
 * outcome written to its record as soon as the server answered.
 */
import { nowMs } from '../../clock.ts';
import { log } from '../../logger.ts';
import type { OutreachEvent } from '../counters/outreach-stats.service.ts';
import type { ListedAddresses } from '../suppressions/suppressions.service.ts';
import type { DeliveryRequest } from './claim.ts';
import { compose } from './compose.ts';
import { classifySmtpError, transportFor, type SmtpFailure } from './mailer.ts';
import { recordOutcome, type MessageOutcome } from './messages.service.ts';

export type Delivery =
  | { outcome: 'sent'; sentAt: Date }
  | { outcome: 'deferred'; retryAt: Date; error: string }
  | { outcome: 'suppressed' }
  | { outcome: 'bounced'; error: string; code: string | null; inboxPaused: boolean }
  | { outcome: 'failed'; error: string };

/** Attempts at a message before a temporary failure becomes its end, and the waits between them. */
const retryDelaysMs = [5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000];

/** What the SMTP call came to, before anything is written. */
type Attempt =
  { outcome: 'sent'; sentAt: Date; smtpResponse: string } | { outcome: 'suppressed' } | { outcome: 'refused'; failure: SmtpFailure };

/** A send the server answered (or that was not made, its address listed), judged, its outcome being written. */
export interface Answer<Request extends DeliveryRequest = DeliveryRequest> {
  request: Request;
  outcome: MessageOutcome;
  delivery: Delivery;
  counted: OutreachEvent[];
  /** It did not go out: its cap slots go back. */
  giveBack: boolean;
}

/**
 * Sends a claimed message over SMTP (nothing to an address on the
 * do-not-contact list as the caller read it just before) and, as soon as
 * the server answered, writes its outcome (grouped with the others answered
 * meanwhile): a worker that dies after that leaves it recorded, not
 * unknown. Answers once the server did; `written` settles once the outcome
 * is stored.
 */
export async function answer<Request extends DeliveryRequest>(
  request: Request,
  listed: ListedAddresses,
): Promise<{ answer: Answer<Request>; written: Promise<void> }> {
  const attempt = listed.has(request.record.to) ? ({ outcome: 'suppressed' } as const) : await sendOverSmtp(request);
  const judged = { request, ...judge(request, attempt) };
  const written = recordOutcome(request.record._id, judged.outcome, judged.counted, judged.giveBack);
  // Awaited by the caller later, with the others: marked handled meanwhile, so a failure is not taken for an unhandled one.
  written.catch(() => undefined);
  return { answer: judged, written };
}

async function sendOverSmtp(request: DeliveryRequest): Promise<Attempt> {
  const { record, inbox } = request;
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
        references: record.references ?? null,
        trackOpens: request.trackOpens,
        trackClicks: request.trackClicks,
      }),
    );
    return { outcome: 'sent', sentAt: new Date(nowMs()), smtpResponse: String(info.response ?? '') };
  } catch (error) {
    return { outcome: 'refused', failure: classifySmtpError(error) };
  }
}

/** What an attempt means for its record, its slots and the counts. */
function judge({ record, inbox }: DeliveryRequest, attempt: Attempt): Omit<Answer, 'request'> {
  if (attempt.outcome === 'sent') {
    return {
      outcome: { status: 'sent', sentAt: attempt.sentAt, smtpResponse: attempt.smtpResponse },
      delivery: { outcome: 'sent', sentAt: attempt.sentAt },
      counted: ['sent'],
      giveBack: false,
    };
  }
  if (attempt.outcome === 'suppressed') {
    return {
      outcome: { status: 'failed', error: 'the address is on the do-not-contact list' },
      delivery: { outcome: 'suppressed' },
      counted: [],
      giveBack: true,
    };
  }
  const { failure } = attempt;
  log.warn('outreach send failed', {
    recordId: record._id,
    inboxId: inbox.id,
    kind: failure.kind,
    code: failure.code,
    error: failure.message,
  });
  if (failure.kind === 'temporary' && record.attempts <= retryDelaysMs.length) {
    const retryAt = new Date(nowMs() + retryDelaysMs[record.attempts - 1]!);
    return {
      outcome: { status: 'deferred', retryAt, error: failure.message },
      delivery: { outcome: 'deferred', retryAt, error: failure.message },
      counted: [],
      giveBack: true,
    };
  }
  if (failure.kind !== 'rejected') {
    return {
      outcome: { status: 'failed', error: failure.message },
      delivery: { outcome: 'failed', error: failure.message },
      counted: ['failed'],
      giveBack: false,
    };
  }
  // Refused at RCPT: a hard bounce, known at once.
  return {
    outcome: { status: 'failed', error: failure.message },
    delivery: { outcome: 'bounced', error: failure.message, code: failure.code, inboxPaused: false },
    counted: ['sent', 'bounced'],
    giveBack: false,
  };
}
