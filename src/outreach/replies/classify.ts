import { DateTime, Info } from 'luxon';
import type { Attachment, ParsedMail } from 'mailparser';

export interface Classified {
  kind: 'reply' | 'bounce' | 'auto_reply';
  bounceType: 'hard' | 'soft' | null;
  /** The DSN's status (`5.1.1`), or the SMTP reply code found in the text. */
  bounceCode: string | null;
  /** The address a bounce or a complaint is about. */
  bouncedEmail: string | null;
  /** An RFC 5965 feedback report: the recipient complained. */
  complaint: boolean;
  /** Message-IDs the message refers back to, most specific first (a returned message's own, then In-Reply-To, References). */
  refersTo: string[];
  /** A notice of the mail system, not of a person (a delay or success notice, a DMARC report): no out-of-office date is read in it. */
  fromMailSystem: boolean;
}

type Fields = Map<string, string>;

const none = { bounceType: null, bounceCode: null, bouncedEmail: null, complaint: false, fromMailSystem: false } as const;
const attachmentText = (attachment: Attachment) => attachment.content.toString('utf8');
const contentType = (mail: ParsedMail) =>
  mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
const header = (mail: ParsedMail, name: string) => (mail.headers.has(name) ? String(mail.headers.get(name)).trim() : undefined);
/** `<local@domain>` tokens only: comments and junk around them in In-Reply-To are left out. */
const ids = (value: string | string[] | undefined) =>
  [value ?? []]
    .flat()
    .join(' ')
    .match(/<[^<>\s]+@[^<>\s]+>/g) ?? [];
const unique = (values: string[]) => [...new Set(values)];
/** The addresses in a field such as `rfc822; <a@b.c>` (address type, brackets and comments cut). */
const addresses = (value: string | undefined) => (value ?? '').match(/[^\s<>;:"'@,()]+@[^\s<>;:"'@,()]+[^\s<>;:"'@,().]/g) ?? [];
const address = (value: string | undefined) => addresses(value)[0] ?? null;
/** The address of a To with one recipient: a message of ours goes to one lead. */
const soleAddress = (value: string | undefined) => (addresses(value).length === 1 ? addresses(value)[0]! : null);
const field = (fields: string, name: string) => new RegExp(`^${name}[ \\t]*:[ \\t]*(.*)`, 'im').exec(fields)?.[1]?.trim();

/**
 * The per-recipient field groups of the RFC 3464 delivery-status parts. A
 * group ends at a blank line or at a field seen twice: AOL, McAfee and
 * Mimecast leave the blank lines out, so the groups cannot be told apart
 * by blank lines alone.
 */
function recipientGroups(mail: ParsedMail): Fields[] {
  const groups: Fields[] = [];
  for (const part of mail.attachments.filter((a) => /^message\/(global-)?delivery-status$/i.test(a.contentType))) {
    let group: Fields = new Map();
    for (const line of [
      ...attachmentText(part)
        .replace(/\r\n?/g, '\n')
        .replace(/\n[ \t]+/g, ' ')
        .split('\n'),
      '',
    ]) {
      const found = /^([\w-]+)\s*:\s*(.*)$/.exec(line);
      if (found ? group.has(found[1]!.toLowerCase()) : !line.trim()) {
        groups.push(group);
        group = new Map();
      }
      if (found) group.set(found[1]!.toLowerCase(), found[2]!.trim());
    }
  }
  return groups.filter((group) => group.has('action') || group.has('status'));
}

/**
 * The text of a report split into its own notice and the header section of
 * the message it returns. That message is a message/rfc822 or
 * text/rfc822-headers part, else quoted in the text (Exim, qmail, Gmail,
 * Office 365; mailparser turns an inline message/rfc822 into text too).
 */
function returned(mail: ParsedMail): { notice: string; headers: string } {
  const text = (mail.text ?? '').replace(/\r\n?/g, '\n');
  const part = mail.attachments.find((a) =>
    /^(message\/(rfc822|global|rfc822-headers|global-headers)|text\/rfc822-headers?)$/i.test(a.contentType),
  );
  const at = part ? -1 : text.search(/^(Return-Path|Received|DKIM-Signature|Message-ID|From|To|Date|Subject)[ \t]*:/im);
  const quoted = part ? attachmentText(part).replace(/\r\n?/g, '\n') : at < 0 ? '' : text.slice(at);
  return { notice: at < 0 ? text : text.slice(0, at), headers: quoted.split(/\n[ \t]*\n/)[0]!.replace(/\n[ \t]+/g, ' ') };
}

const refersBack = (returnedHeaders: string, headerRefs: string[]) =>
  unique([...ids(field(returnedHeaders, 'Message-ID')).slice(0, 1), ...headerRefs]);

const enhancedCode = /(?<![\d.])([45]\.\d{1,3}\.\d{1,3})(?![\d.]*\d)/;
const replyCode = /(?<![\d.])([45][0-5]\d)(?=[\s-])/;
const codeIn = (text: string) => enhancedCode.exec(text)?.[1] ?? replyCode.exec(text)?.[1] ?? null;

/** The recipient's status; a class-only one (`5.0.0`) gives way to the remote server's own status of the same class. */
function statusOf(group: Fields): string | null {
  const status = enhancedCode.exec(group.get('status') ?? '')?.[1];
  const diagnostic = group.get('diagnostic-code') ?? '';
  if (!status) return codeIn(diagnostic);
  const specific = enhancedCode.exec(diagnostic)?.[1];
  return specific && status.endsWith('.0.0') && specific[0] === status[0] ? specific : status;
}

/**
 * Hard for permanent failures (5.x.x: unknown user or host, moved, and a
 * returned message with no code at all), soft for temporary ones (4.x.x)
 * and a full mailbox (5.2.2 is a permanent code for a state that passes;
 * with no code, some MTAs only say it in words).
 */
const bounceTypeOf = (code: string | null, notice: string): 'hard' | 'soft' =>
  code?.startsWith('4') || code === '5.2.2' || (!code && /mailbox (is )?full|over ?quota|quota exceeded/i.test(notice)) ? 'soft' : 'hard';

/** A delivery report without a status part to read: Exim, qmail, Gmail and Office 365 put the status in the text only. */
function isDeliveryReport(mail: ParsedMail, reportType: string | undefined): boolean {
  const sender = mail.from?.value[0];
  return (
    reportType === 'delivery-status' ||
    mail.headers.has('x-failed-recipients') ||
    mail.headers.has('x-ms-exchange-message-is-ndr') ||
    /^(mailer-daemon|postmaster)(@|$)/i.test(sender?.address ?? '') ||
    /mailer-daemon|mail delivery (sub)?system/i.test(sender?.name ?? '')
  );
}

/** Anchored: a bounce's subject often ends with the returned message's own, which may say anything. */
const delaySubject =
  /^((mail )?delivery status notification( \(delay\)|: warning)|delayed mail|delivery delayed|warning\b|zustellung verz[öo]gert)/i;

function deliveryReport(mail: ParsedMail, groups: Fields[], headerRefs: string[]): Classified {
  const { notice, headers } = returned(mail);
  const refersTo = refersBack(headers, headerRefs);
  const failed = groups.find((group) => !/^(delayed|delivered|relayed|expanded)$/i.test(group.get('action') ?? 'failed'));
  // A delay is not a bounce: the message is still on its way (with no status part, only the subject says so). Nor is a success notice.
  if (groups.length ? !failed : delaySubject.test(mail.subject ?? ''))
    return { ...none, kind: 'auto_reply', fromMailSystem: true, refersTo };
  const code = (failed ? statusOf(failed) : null) ?? codeIn(notice);
  // The original recipient is the address we sent to; the final one may be where it was forwarded.
  const bouncedEmail =
    address(failed?.get('original-recipient')) ??
    address(failed?.get('final-recipient')) ??
    address(header(mail, 'x-failed-recipients')) ??
    soleAddress(field(headers, 'To'));
  return {
    ...none,
    kind: 'bounce',
    fromMailSystem: true,
    bounceType: bounceTypeOf(code, notice),
    bounceCode: code,
    bouncedEmail,
    refersTo,
  };
}

function feedbackReport(mail: ParsedMail, headerRefs: string[]): Classified {
  const part = mail.attachments.find((a) => /^message\/feedback-report$/i.test(a.contentType));
  const report = part ? attachmentText(part) : '';
  const { headers } = returned(mail);
  const refersTo = refersBack(headers, headerRefs);
  // DMARC failure reports (RFC 6591 auth-failure), not-spam and virus notices share the format but are no complaint of the recipient's.
  if (/^(auth-failure|not-spam|virus)$/i.test(field(report, 'Feedback-Type') ?? ''))
    return { ...none, kind: 'auto_reply', fromMailSystem: true, refersTo };
  const bouncedEmail =
    address(field(report, 'Original-Rcpt-To')) ?? address(field(report, 'Removal-Recipient')) ?? soleAddress(field(headers, 'To'));
  return { ...none, kind: 'bounce', fromMailSystem: true, complaint: true, bouncedEmail, refersTo };
}

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
 * What a message that came back is, in this order: a complaint (RFC 5965),
 * a bounce (an RFC 3464 delivery status notification, a delay or a success
 * excepted; else a report from the mail system with the code in its text),
 * an automatic reply (RFC 3834 Auto-Submitted, X-Autoreply, X-Autorespond,
 * Precedence auto_reply/bulk/junk, Exchange's out-of-office markers; only
 * then the subject), else a reply.
 */
export function classify(mail: ParsedMail): Classified {
  const headerRefs = [...ids(mail.inReplyTo), ...ids(mail.references).reverse()];
  const type = contentType(mail);
  const reportType = type?.value?.toLowerCase() === 'multipart/report' ? type.params?.['report-type']?.toLowerCase() : undefined;
  if (reportType === 'feedback-report') return feedbackReport(mail, headerRefs);
  const groups = recipientGroups(mail);
  if (groups.length || isDeliveryReport(mail, reportType)) return deliveryReport(mail, groups, headerRefs);
  return { ...none, kind: isAutoReply(mail) ? 'auto_reply' : 'reply', refersTo: unique(headerRefs) };
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
