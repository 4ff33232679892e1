import { nowMs } from '../../clock.ts';
import { log } from '../../logger.ts';
import { applyBounceGuard, type inboxesForSending } from '../inboxes/inbox-sending.service.ts';
import type { OutreachEvent } from '../stats/outreach-stats.service.ts';
import { suppressedAmong, type ListedAddresses } from '../suppressions/suppressions.service.ts';
import { compose } from './compose.ts';
import { classifySmtpError, transportFor, type SmtpFailure } from './mailer.ts';
import type { MessageDoc } from './message.model.ts';
import { recordOutcome, type MessageOutcome } from './messages.service.ts';
import type { SendHold } from './send-holds.ts';
import { countOutcomes } from './settle-effects.ts';

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
  /** The cap counts the send holds a slot of (under its hold): given back when the send did not happen. */
  counts: string[];
}

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
        trackOpens: request.trackOpens,
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

/**
 * Counts what came of a hold's answered sends, once (countOutcomes: the
 * statistics, the campaign's sent, a hard bounce's suppression), then has
 * the bounce guard look at each inbox a recipient refused. Answers each
 * send's delivery, in order.
 */
export async function settleAnswers(hold: SendHold, answers: Answer[]): Promise<Delivery[]> {
  await countOutcomes(
    hold.id,
    answers.map(({ request, outcome, counted }) => ({ ...request.record, status: outcome.status, counted })),
  );
  const bounced = answers.filter(({ delivery }) => delivery.outcome === 'bounced');
  const paused = new Set<string>();
  for (const { request } of new Map(bounced.map((one) => [one.request.inbox.id, one])).values()) {
    if (await applyBounceGuard(request.record.workspaceId, request.inbox.id)) paused.add(request.inbox.id);
  }
  return answers.map(({ request, delivery }) =>
    delivery.outcome === 'bounced' ? { ...delivery, inboxPaused: paused.has(request.inbox.id) } : delivery,
  );
}

/** One message under `hold`: the list read for it, sent, its outcome written and counted. */
export async function deliver(request: DeliveryRequest, hold: SendHold): Promise<Delivery> {
  const listed = await suppressedAmong(request.record.workspaceId, [request.record.to]);
  const { answer: answered, written } = await answer(request, listed);
  await written;
  if (answered.giveBack) hold.unuse(request.counts);
  const [delivery] = await settleAnswers(hold, [answered]);
  return delivery!;
}
