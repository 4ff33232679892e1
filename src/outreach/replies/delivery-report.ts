import type { Attachment, ParsedMail } from 'mailparser';
import { address, addresses, ids, none, systemNotice, unique, type Classified } from './classified.ts';
import { delaySubject, failureWording } from './mail-system.ts';

/** Reads the reports mail systems send back: RFC 3464 delivery status, RFC 5965 feedback, and their plain-text kin. */

type Fields = Map<string, string>;

const attachmentText = (attachment: Attachment) => attachment.content.toString('utf8');
const header = (mail: ParsedMail, name: string) => (mail.headers.has(name) ? String(mail.headers.get(name)).trim() : undefined);
/** The address of a To with one recipient: a message of ours goes to one lead. */
const soleAddress = (value: string | undefined) => (addresses(value).length === 1 ? addresses(value)[0]! : null);
const field = (fields: string, name: string) => new RegExp(`^${name}[ \\t]*:[ \\t]*(.*)`, 'im').exec(fields)?.[1]?.trim();
/** A text with the quote marks of a forward or a reply (`> `) taken off each line. */
const unquoted = (text: string) => text.replace(/\r\n?/g, '\n').replace(/^([ \t]*>[ \t]?)+/gm, '');

/**
 * The field groups of RFC 3464 text. A group ends at a blank line or at a
 * field seen twice: AOL, McAfee and Mimecast leave the blank lines out, so
 * the groups cannot be told apart by blank lines alone.
 */
function fieldGroups(text: string): Fields[] {
  const groups: Fields[] = [];
  let group: Fields = new Map();
  for (const line of [
    ...text
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
  return groups;
}

/** The per-recipient groups of the message's delivery-status parts. */
export function recipientGroups(mail: ParsedMail): Fields[] {
  return mail.attachments
    .filter((a) => /^message\/(global-)?delivery-status$/i.test(a.contentType))
    .flatMap((part) => fieldGroups(attachmentText(part)))
    .filter((group) => group.has('action') || group.has('status'));
}

/**
 * Per-recipient groups written out in the text (a bounce forwarded by a
 * person, quoted or not): only whole ones, with a recipient, an action and
 * a status, which no one writes in a letter.
 */
export const groupsInText = (mail: ParsedMail): Fields[] =>
  fieldGroups(unquoted(mail.text ?? '')).filter(
    (group) => group.has('action') && group.has('status') && (group.has('final-recipient') || group.has('original-recipient')),
  );

/**
 * The text of a report split into its own notice and the header section of
 * the message it returns. That message is a message/rfc822 or
 * text/rfc822-headers part, else quoted in the text (Exim, qmail, Gmail,
 * Office 365; mailparser turns an inline message/rfc822 into text too).
 */
export function returned(mail: ParsedMail): { notice: string; headers: string; quoted: string; attached: boolean } {
  const text = unquoted(mail.text ?? '');
  const part = mail.attachments.find((a) =>
    /^(message\/(rfc822|global|rfc822-headers|global-headers)|text\/rfc822-headers?)$/i.test(a.contentType),
  );
  const at = part ? -1 : text.search(/^(Return-Path|Received|DKIM-Signature|Message-ID|From|To|Date|Subject)[ \t]*:/im);
  const quoted = part ? attachmentText(part).replace(/\r\n?/g, '\n') : at < 0 ? '' : text.slice(at);
  return {
    notice: at < 0 ? text : text.slice(0, at),
    headers: quoted.split(/\n[ \t]*\n/)[0]!.replace(/\n[ \t]+/g, ' '),
    quoted,
    attached: Boolean(part),
  };
}

/**
 * The returned message's Message-ID, then the message's own references. A
 * bounce forwarded by a person starts with the bounce's header section: the
 * message it returns comes last.
 */
function refersBack(back: { headers: string; quoted: string }, headerRefs: string[], forwarded = false) {
  const last = forwarded ? [...back.quoted.matchAll(/^Message-ID[ \t]*:[ \t]*(.*)$/gim)].flatMap((m) => ids(m[1])).reverse() : [];
  return unique([...last, ...ids(field(back.headers, 'Message-ID')).slice(0, 1), ...headerRefs]);
}

const enhancedCode = /(?<![\d.])([45]\.\d{1,3}\.\d{1,3})(?![\d.]*\d)/;
const replyCode = /(?<![\d.])([45][0-5]\d)(?=[\s-])/;
export const codeIn = (text: string) => enhancedCode.exec(text)?.[1] ?? replyCode.exec(text)?.[1] ?? null;

/** The recipient's status; a class-only one (`5.0.0`) gives way to the remote server's own status of the same class. */
function statusOf(group: Fields): string | null {
  const status = enhancedCode.exec(group.get('status') ?? '')?.[1];
  const diagnostic = group.get('diagnostic-code') ?? '';
  if (!status) return codeIn(diagnostic);
  const specific = enhancedCode.exec(diagnostic)?.[1];
  return specific && status.endsWith('.0.0') && specific[0] === status[0] ? specific : status;
}

/** A full mailbox (in a few languages), or a message its server gave up retrying. */
const softWording =
  /mailbox (is )?full|over ?quota|quota exceeded|envelope expired|(message|delivery) (has )?expired|postfach (ist )?voll|bo[îi]te (aux lettres )?(est )?pleine|buz[óo]n (est[áa] )?lleno|casella (di posta )?piena|メールボックスが(一杯|いっぱい)|容量(を)?超過|邮箱已满|信箱已满/iu;

/**
 * Hard for permanent failures (5.x.x: unknown user or host, moved, and a
 * returned message with no code at all), soft for temporary ones (4.x.x)
 * and a full mailbox (5.2.2 is a permanent code for a state that passes;
 * with no code, some MTAs only say it in words, or that they gave up
 * retrying).
 */
const bounceTypeOf = (code: string | null, notice: string): 'hard' | 'soft' =>
  code?.startsWith('4') || code === '5.2.2' || (!code && softWording.test(notice)) ? 'soft' : 'hard';

/**
 * The one address a plain-text notice gives as the one that failed: on a
 * line, or just after one, that says the mail failed, gives a status code
 * or names a recipient; its own sender and recipient and the returned
 * message's sender left out. None when it names several.
 */
function recipientInNotice(mail: ParsedMail, notice: string, returnedHeaders: string): string | null {
  const own = new Set(
    [mail.from?.text, (mail.to as { text?: string } | undefined)?.text, header(mail, 'reply-to'), field(returnedHeaders, 'From')]
      .flatMap((value) => addresses(value))
      .map((a) => a.toLowerCase()),
  );
  const telling = (line: string) => failureWording.test(line) || codeIn(line) !== null || /recipient|rcpt to/i.test(line);
  const lines = notice.split('\n');
  const candidates = unique(
    lines
      .filter((line, n) => telling(line) || (n > 0 && telling(lines[n - 1]!)))
      .flatMap((line) => addresses(line))
      .map((a) => a.toLowerCase())
      .filter((a) => !own.has(a)),
  );
  return candidates.length === 1 ? candidates[0]! : null;
}

/**
 * A delivery report: a bounce, unless its recipients were only delayed,
 * delivered, relayed or expanded (with no status part to say, a delay's
 * subject says so). `forwarded`: a person forwarded it, its groups are in the text.
 */
export function deliveryReport(mail: ParsedMail, groups: Fields[], headerRefs: string[], forwarded = false): Classified {
  const back = returned(mail);
  const { notice, headers } = back;
  const refersTo = refersBack(back, headerRefs, forwarded);
  const failed = groups.find((group) => !/^(delayed|delivered|relayed|expanded)$/i.test(group.get('action') ?? 'failed'));
  // A delay is not a bounce: the message is still on its way (with no status part, only the subject says so). Nor is a success notice.
  if (groups.length ? !failed : delaySubject.test(mail.subject ?? '')) return systemNotice(refersTo);
  const code = (failed ? statusOf(failed) : null) ?? codeIn(notice);
  // The original recipient is the address we sent to; the final one may be where it was forwarded.
  const bouncedEmail =
    address(failed?.get('original-recipient')) ??
    address(failed?.get('final-recipient')) ??
    address(header(mail, 'x-failed-recipients')) ??
    soleAddress(field(headers, 'To')) ??
    recipientInNotice(mail, notice, headers);
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

/** RFC 5965: an abuse report (or an opt-out) is a complaint; DMARC failure reports, not-spam and virus notices are not. */
export function feedbackReport(mail: ParsedMail, headerRefs: string[]): Classified {
  const part = mail.attachments.find((a) => /^message\/feedback-report$/i.test(a.contentType));
  const report = part ? attachmentText(part) : '';
  const back = returned(mail);
  const refersTo = refersBack(back, headerRefs);
  if (/^(auth-failure|not-spam|virus)$/i.test(field(report, 'Feedback-Type') ?? '')) return systemNotice(refersTo);
  const bouncedEmail =
    address(field(report, 'Original-Rcpt-To')) ?? address(field(report, 'Removal-Recipient')) ?? soleAddress(field(back.headers, 'To'));
  return { ...none, kind: 'bounce', fromMailSystem: true, complaint: true, bouncedEmail, refersTo };
}

/**
 * A complaint sent as a plain message with the complained-of message
 * attached (older feedback loops): the address is the one the returned
 * message names as its original recipient, else its sole To.
 */
export function complaintNotice(mail: ParsedMail, headerRefs: string[]): Classified {
  const back = returned(mail);
  const original = /^[\w-]*original-?recipient[ \t]*:[ \t]*(.*)$/im.exec(back.headers)?.[1];
  const bouncedEmail = address(original) ?? soleAddress(field(back.headers, 'To'));
  return { ...none, kind: 'bounce', fromMailSystem: true, complaint: true, bouncedEmail, refersTo: refersBack(back, headerRefs) };
}
