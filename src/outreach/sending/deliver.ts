import { nowMs } from '../../clock.ts';
import { log } from '../../logger.ts';
import { applyBounceGuard, type inboxesForSending } from '../inboxes/inbox-sending.service.ts';
import { suppressAddress, suppressedAmong, type ListedAddresses } from '../suppressions/suppressions.service.ts';
import { eventScopes, recordOutreachEvents, type ScopedEvents } from '../stats/outreach-stats.service.ts';
import { compose } from './compose.ts';
import { classifySmtpError, transportFor, type SmtpFailure } from './mailer.ts';
import type { MessageDoc } from './message.model.ts';
import { recordOutcomes, type MessageOutcome } from './messages.service.ts';
import { releaseSlots, type TakenSlots } from './send-slots.ts';

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
  /** The cap slots the send holds: given back when the send did not happen. */
  slots: TakenSlots[];
}

/** What the SMTP call came to, before anything is written. */
export type Attempt =
  { outcome: 'sent'; sentAt: Date; smtpResponse: string } | { outcome: 'suppressed' } | { outcome: 'refused'; failure: SmtpFailure };

/**
 * Sends claimed messages of one workspace over SMTP, all at once, none to
 * an address on its do-not-contact list as the caller read it just before.
 * Writes nothing: recordDeliveries does, for many attempts at once.
 */
export async function attemptDeliveries(
  requests: DeliveryRequest[],
  listed: ListedAddresses,
): Promise<Array<{ request: DeliveryRequest; attempt: Attempt }>> {
  return Promise.all(
    requests.map(async (request) => ({
      request,
      attempt: listed.has(request.record.to) ? ({ outcome: 'suppressed' } as const) : await sendOverSmtp(request),
    })),
  );
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
function settle(
  { record, inbox }: DeliveryRequest,
  attempt: Attempt,
): { outcome: MessageOutcome; delivery: Delivery; events: ScopedEvents['events']; giveBack: boolean } {
  if (attempt.outcome === 'sent') {
    return {
      outcome: { status: 'sent', sentAt: attempt.sentAt, smtpResponse: attempt.smtpResponse },
      delivery: { outcome: 'sent', sentAt: attempt.sentAt },
      events: ['sent'],
      giveBack: false,
    };
  }
  if (attempt.outcome === 'suppressed') {
    return {
      outcome: { status: 'failed', error: 'the address is on the do-not-contact list' },
      delivery: { outcome: 'suppressed' },
      events: [],
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
      events: [],
      giveBack: true,
    };
  }
  if (failure.kind !== 'rejected') {
    return {
      outcome: { status: 'failed', error: failure.message },
      delivery: { outcome: 'failed', error: failure.message },
      events: ['failed'],
      giveBack: false,
    };
  }
  // Refused at RCPT: a hard bounce, known at once.
  return {
    outcome: { status: 'failed', error: failure.message },
    delivery: { outcome: 'bounced', error: failure.message, code: failure.code, inboxPaused: false },
    events: ['sent', 'bounced'],
    giveBack: false,
  };
}

/**
 * Records what came of many attempts, in a few writes for all of them: the
 * records' outcomes, the slots of sends that did not happen given back (a
 * temporary failure is tried again later), the counts. A recipient refused
 * at RCPT is a hard bounce: the address is suppressed and the bounce guard
 * looks at its inbox. Answers each attempt's delivery, in order.
 */
export async function recordDeliveries(attempts: Array<{ request: DeliveryRequest; attempt: Attempt }>): Promise<Delivery[]> {
  const settled = attempts.map(({ request, attempt }) => ({ request, ...settle(request, attempt) }));
  await recordOutcomes(settled.map(({ request, outcome }) => ({ recordId: request.record._id, outcome })));
  await releaseSlots(settled.filter((s) => s.giveBack).flatMap((s) => s.request.slots));
  await recordOutreachEvents(
    settled.filter((s) => s.events.length).map((s) => ({ scopes: eventScopes(s.request.record), events: s.events })),
  );
  const bounced = settled.filter((s) => s.delivery.outcome === 'bounced');
  for (const { request } of bounced) await suppressAddress(request.record.workspaceId, request.record.to, 'hard_bounce', 'smtp_rejection');
  const paused = new Set<string>();
  for (const inbox of new Map(bounced.map(({ request }) => [request.inbox.id, request])).values()) {
    if (await applyBounceGuard(inbox.record.workspaceId, inbox.inbox.id)) paused.add(inbox.inbox.id);
  }
  return settled.map(({ request, delivery }) =>
    delivery.outcome === 'bounced' ? { ...delivery, inboxPaused: paused.has(request.inbox.id) } : delivery,
  );
}

/** One message: the list read for it, attempted, then recorded. */
export async function deliver(request: DeliveryRequest): Promise<Delivery> {
  const listed = await suppressedAmong(request.record.workspaceId, [request.record.to]);
  const [delivery] = await recordDeliveries(await attemptDeliveries([request], listed));
  return delivery!;
}
