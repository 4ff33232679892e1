import { DateTime, Info } from 'luxon';
import type { ParsedMail } from 'mailparser';
import { ids, none, unique, type Classified } from './classified.ts';
import { codeIn, complaintNotice, deliveryReport, feedbackReport, groupsInText, recipientGroups, returned } from './delivery-report.ts';
import { bounceSubject, complaintSubject, failureWording, isAutomatedSender, isMailDaemon } from './mail-system.ts';
import { sesNotification } from './ses-notification.ts';

const contentType = (mail: ParsedMail) =>
  mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
const header = (mail: ParsedMail, name: string) => (mail.headers.has(name) ? String(mail.headers.get(name)).trim() : undefined);

const autoReplySubject =
  /^(auto(matic)?[ -]?(reply|response|antwort)|automatische antwort|automatisch antwoord|autosvar|out of (the )?office|abwesenheit|absence|r[ée]ponse automatique|respuesta autom[áa]tica|risposta automatica|away from)/i;

function isAutoReply(mail: ParsedMail): boolean {
  const autoSubmitted = header(mail, 'auto-submitted')?.toLowerCase();
  return (
    (autoSubmitted !== undefined && autoSubmitted !== 'no') ||
    mail.headers.has('x-autoreply') ||
    mail.headers.has('x-autorespond') ||
    /^(auto_reply|bulk|junk)$/i.test(header(mail, 'precedence') ?? '') ||
    (mail.headers.has('x-auto-response-suppress') && mail.headers.has('x-ms-exchange-inbox-rules-loop')) ||
    autoReplySubject.test(mail.subject ?? '')
  );
}

/**
 * A notice of the mail system without a status part, told by what it says:
 * a daemon's message is one whatever it says; an automated sender's
 * (no-reply, a null return path, a list manager) when its subject or its
 * own text says the mail was not delivered; anyone's when its subject is a
 * returned-mail subject and it carries the returned message, or a status
 * code beside such words. A person's answer that only uses the words is
 * none: it has none of the rest.
 */
function isPlainDeliveryReport(mail: ParsedMail, reportType: string | undefined): boolean {
  if (reportType === 'delivery-status' || mail.headers.has('x-failed-recipients') || mail.headers.has('x-ms-exchange-message-is-ndr'))
    return true;
  if (isMailDaemon(mail)) return true;
  const subject = mail.subject ?? '';
  const { notice, attached } = returned(mail);
  const saysFailed = failureWording.test(notice);
  if (isAutomatedSender(mail) && (bounceSubject.test(subject) || saysFailed)) return true;
  return bounceSubject.test(subject) && (attached || (saysFailed && codeIn(notice) !== null));
}

/**
 * What a message that came back is, in this order: a complaint (an RFC
 * 5965 report, an SES notice, or a complaint notice with the message
 * attached), a bounce (an RFC 3464 delivery status notification, one
 * forwarded by a person, an SES notice, or a notice of the mail system
 * with the code in its text, a delay or a success excepted), an automatic
 * reply (RFC 3834 Auto-Submitted, X-Autoreply, X-Autorespond, Precedence
 * auto_reply/bulk/junk, Exchange's out-of-office markers, an automated
 * sender; only then the subject), else a reply.
 */
export function classify(mail: ParsedMail): Classified {
  const headerRefs = [...ids(mail.inReplyTo), ...ids(mail.references).reverse()];
  const type = contentType(mail);
  const reportType = type?.value?.toLowerCase() === 'multipart/report' ? type.params?.['report-type']?.toLowerCase() : undefined;
  if (reportType === 'feedback-report') return feedbackReport(mail, headerRefs);
  const groups = recipientGroups(mail);
  if (groups.length) return deliveryReport(mail, groups, headerRefs);
  const notification = sesNotification(mail, headerRefs);
  if (notification) return notification;
  if (complaintSubject.test(mail.subject ?? '') && returned(mail).headers) return complaintNotice(mail, headerRefs);
  if (isPlainDeliveryReport(mail, reportType)) return deliveryReport(mail, groups, headerRefs);
  const forwarded = groupsInText(mail);
  if (forwarded.length) return deliveryReport(mail, forwarded, headerRefs, true);
  return { ...none, kind: isAutoReply(mail) || isAutomatedSender(mail) ? 'auto_reply' : 'reply', refersTo: unique(headerRefs) };
}

const monthNumbers = new Map(
  ['en', 'de'].flatMap((locale) =>
    (['long', 'short'] as const).flatMap((style) => Info.months(style, { locale }).map((name, i) => [name.toLowerCase(), i + 1] as const)),
  ),
);
const MONTH = `(${[...monthNumbers.keys()].sort((a, b) => b.length - a.length).join('|')})(?!\\p{L})\\.?`;
const DAY = '(\\d{1,2})(?:st|nd|rd|th|\\.)?';
const YEAR = '(?:,?\\s+(\\d{4}))?';
const TO = '\\s*(?:-|–|to|bis)\\s*';
/** A word that puts a return date after it, then a few words (no digits, no sentence end) before the date. */
const RETURN = '(?<!\\p{L})(?:until|till|til|through|thru|back|return(?:ing|s)?|available|bis|zurück|wieder|ab)(?!\\p{L})[^\\d.!?]{0,40}?';

type Parts = [year: string | undefined, month: number | undefined, day: number];
const monthOf = (name: string) => monthNumbers.get(name.toLowerCase());
/**
 * Date shapes read into [year, month, day] choices, the likeliest first
 * (slashes in US order, then the other), each after a return word; a span
 * of days (`July 10-31`, `1. bis 5. Dezember`) needs none: its last day is
 * the return.
 */
const datePatterns = (
  [
    [RETURN + '(\\d{4})-(\\d{1,2})-(\\d{1,2})', (m) => [[m[1], +m[2]!, +m[3]!]]],
    [
      RETURN + '(\\d{1,2})/(\\d{1,2})(?:/(\\d{4}|\\d{2}))?',
      (m) => [
        [m[3], +m[1]!, +m[2]!],
        [m[3], +m[2]!, +m[1]!],
      ],
    ],
    [RETURN + '(\\d{1,2})\\.(\\d{1,2})\\.(\\d{4}|\\d{2})?', (m) => [[m[3], +m[2]!, +m[1]!]]],
    [`${RETURN}${DAY}\\s+(?:of\\s+)?${MONTH}${YEAR}`, (m) => [[m[3], monthOf(m[2]!), +m[1]!]]],
    [`${RETURN}${MONTH}\\s+${DAY}${YEAR}`, (m) => [[m[3], monthOf(m[1]!), +m[2]!]]],
    [`${DAY}${TO}${DAY}\\s+${MONTH}${YEAR}`, (m) => [[m[4], monthOf(m[3]!), +m[2]!]]],
    [`${MONTH}\\s+${DAY}${TO}${DAY}${YEAR}`, (m) => [[m[4], monthOf(m[1]!), +m[3]!]]],
  ] as [string, (m: RegExpExecArray) => Parts[]][]
).map(([source, parts]) => [new RegExp(source, 'giu'), parts] as const);

/** The first choice that is a day after `receivedAt` and within 90 days of it; with no year, this year's or next year's. */
function dayInRange(choices: Parts[], receivedAt: DateTime): DateTime | null {
  for (const [year, month, day] of choices) {
    for (const y of year ? [year.length === 2 ? 2000 + +year : +year] : [receivedAt.year, receivedAt.year + 1]) {
      const date = DateTime.utc(y, month ?? 0, day);
      if (date.isValid && date > receivedAt && date <= receivedAt.plus({ days: 90 })) return date;
    }
  }
  return null;
}

/**
 * The day an out-of-office auto-reply says its sender is back (English and
 * German: "back on 2 December", "until 12/03/2026", "bis zum 3. Dezember",
 * `2026-12-03`, "July 10-31"), from its subject and its own text (quoted
 * history cut): the start of that day in UTC, or null when there is none
 * after `receivedAt` and within 90 days. Of several, the latest: "from 1
 * December until 7 December" is back on the 7th.
 */
export function outOfOfficeUntil(mail: ParsedMail, receivedAt: Date): Date | null {
  const own = (mail.text ?? '').split(/^(?:>|-{3,}|_{5,}|On .+ wrote:|Am .+ schrieb|From:|Von:)/m)[0]!;
  const text = `${mail.subject ?? ''}\n${own}`.replace(/\s+/g, ' ');
  const received = DateTime.fromJSDate(receivedAt, { zone: 'utc' });
  const found = datePatterns.flatMap(([pattern, parts]) =>
    [...text.matchAll(pattern)].flatMap((match) => dayInRange(parts(match), received) ?? []),
  );
  return DateTime.max(...found)?.toJSDate() ?? null;
}
