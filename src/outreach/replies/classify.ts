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
}

const attachmentText = (attachment: Attachment) => attachment.content.toString('utf8');
const contentType = (mail: ParsedMail) => mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
const header = (mail: ParsedMail, name: string) => {
  const value = mail.headers.get(name);
  return typeof value === 'string' ? value.trim() : value === undefined ? undefined : String(value);
};
const ids = (value: string | string[] | undefined) => (Array.isArray(value) ? value : value ? value.split(/\s+/) : []).filter((id) => id.includes('@'));

/** The Message-ID of a returned message (the `message/rfc822` or `text/rfc822-headers` part of a report). */
function returnedMessageId(mail: ParsedMail): string | null {
  for (const attachment of mail.attachments) {
    if (!/^(message\/rfc822|text\/rfc822-headers|message\/rfc822-headers)$/i.test(attachment.contentType)) continue;
    const found = /^Message-ID:\s*(<[^>\r\n]+>)/im.exec(attachmentText(attachment));
    if (found) return found[1]!;
  }
  return null;
}

/** The per-recipient fields of an RFC 3464 delivery-status part: the first recipient's. */
function deliveryStatus(text: string) {
  const blocks = text.replace(/\r\n/g, '\n').split(/\n\s*\n/).slice(1);
  for (const block of blocks) {
    const field = (name: string) => new RegExp(`^${name}:\\s*(.+(?:\\n[ \\t].+)*)`, 'im').exec(block)?.[1]?.replace(/\n[ \t]+/g, ' ').trim();
    const action = field('Action')?.toLowerCase();
    if (!action) continue;
    const recipient = (field('Final-Recipient') ?? field('Original-Recipient'))?.replace(/^rfc822;\s*/i, '').trim() ?? null;
    return { action, status: field('Status')?.split(/\s/)[0] ?? null, diagnostic: field('Diagnostic-Code') ?? null, recipient };
  }
  return null;
}

/**
 * Hard for permanent failures (5.x.x: unknown user or host, moved), soft
 * for temporary ones (4.x.x) and a full mailbox (5.2.2 is a permanent code
 * for a state that passes).
 */
const bounceTypeOf = (status: string | null): 'hard' | 'soft' => (status && /^5\./.test(status) && status !== '5.2.2' ? 'hard' : 'soft');

const autoReplySubject = /^(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|abwesenheit|absence|r[ée]ponse automatique|respuesta autom[áa]tica|away from)/i;

/**
 * What a message that came back is, in this order: a bounce (an RFC 3464
 * delivery status notification, a delay excepted; else X-Failed-Recipients
 * with the SMTP code in the text), a complaint (RFC 5965), an automatic
 * reply (RFC 3834 Auto-Submitted, X-Autoreply, X-Autorespond, Precedence
 * auto_reply/bulk/junk, Exchange's out-of-office markers; only then the
 * subject), else a reply.
 */
export function classify(mail: ParsedMail): Classified {
  const refersTo = [...ids(mail.inReplyTo), ...ids(mail.references).reverse()];
  const type = contentType(mail);
  const reportType = type?.value === 'multipart/report' ? type.params?.['report-type']?.toLowerCase() : undefined;
  const base = { bounceType: null, bounceCode: null, bouncedEmail: null, complaint: false };

  if (reportType === 'feedback-report') {
    const report = mail.attachments.find((a) => a.contentType === 'message/feedback-report');
    const recipient = report && /^Original-Rcpt-To:\s*(\S+)/im.exec(attachmentText(report))?.[1];
    const returned = returnedMessageId(mail);
    return { ...base, kind: 'bounce', complaint: true, bouncedEmail: recipient?.replace(/^<|>$/g, '') ?? null, refersTo: returned ? [returned, ...refersTo] : refersTo };
  }

  const statusPart = mail.attachments.find((a) => a.contentType === 'message/delivery-status' || a.contentType === 'message/global-delivery-status');
  const status = statusPart ? deliveryStatus(attachmentText(statusPart)) : null;
  if (status && status.action !== 'delivered' && status.action !== 'relayed' && status.action !== 'expanded') {
    const returned = returnedMessageId(mail);
    const back = returned ? [returned, ...refersTo] : refersTo;
    // A delay is not a bounce: the message is still on its way. It is kept as an automatic message.
    if (status.action === 'delayed') return { ...base, kind: 'auto_reply', refersTo: back };
    return { ...base, kind: 'bounce', bounceType: bounceTypeOf(status.status), bounceCode: status.status, bouncedEmail: status.recipient, refersTo: back };
  }
  const failed = header(mail, 'x-failed-recipients');
  if (failed) {
    const code = /\b([45]\.\d{1,3}\.\d{1,3})\b/.exec(mail.text ?? '')?.[1] ?? /\b([45]\d\d)\b/.exec(mail.text ?? '')?.[1] ?? null;
    const returned = returnedMessageId(mail);
    return { ...base, kind: 'bounce', bounceType: code?.startsWith('4') ? 'soft' : bounceTypeOf(code?.includes('.') ? code : '5.0.0'), bounceCode: code, bouncedEmail: failed.split(',')[0]!.trim(), refersTo: returned ? [returned, ...refersTo] : refersTo };
  }

  const autoSubmitted = header(mail, 'auto-submitted')?.toLowerCase();
  const precedence = header(mail, 'precedence')?.toLowerCase();
  const automatic =
    (autoSubmitted !== undefined && autoSubmitted !== 'no') ||
    header(mail, 'x-autoreply') !== undefined ||
    header(mail, 'x-autorespond') !== undefined ||
    (precedence !== undefined && /^(auto_reply|bulk|junk)$/.test(precedence)) ||
    (header(mail, 'x-auto-response-suppress') !== undefined && header(mail, 'x-ms-exchange-inbox-rules-loop') !== undefined) ||
    autoReplySubject.test(mail.subject ?? '');
  return { ...base, kind: automatic ? 'auto_reply' : 'reply', refersTo };
}
