import type { ParsedMail } from 'mailparser';
import { address, ids, none, systemNotice, unique, type Classified } from './classified.ts';

/**
 * Amazon SES's bounce, complaint and delivery notifications delivered by
 * email (an SNS email subscription): a JSON document in the text, bare or
 * inside SNS's envelope (`Message`, itself JSON). Its fields are SES's
 * documented notification contents.
 */
interface SesNotification {
  notificationType?: string;
  eventType?: string;
  bounce?: { bounceType?: string; bouncedRecipients?: Array<{ emailAddress?: string; status?: string; diagnosticCode?: string }> };
  complaint?: { complainedRecipients?: Array<{ emailAddress?: string }>; complaintFeedbackType?: string };
  mail?: { headers?: Array<{ name?: string; value?: string }>; commonHeaders?: { messageId?: string } };
}

/** The JSON object in a text; lines are joined first (a line break inside a string is a mail system's wrapping of a long line). */
function jsonIn(text: string): Record<string, unknown> | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return null;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1).replace(/\r?\n/g, ''));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function notificationIn(mail: ParsedMail): SesNotification | null {
  const outer = jsonIn(mail.text ?? '');
  const inner = typeof outer?.Message === 'string' ? jsonIn(outer.Message) : outer;
  return inner && (typeof inner.notificationType === 'string' || typeof inner.eventType === 'string') ? (inner as SesNotification) : null;
}

/** What an SES notification says, or null when the message is none. */
export function sesNotification(mail: ParsedMail, headerRefs: string[]): Classified | null {
  const notification = notificationIn(mail);
  if (!notification) return null;
  const sentId = notification.mail?.headers?.find((h) => h.name?.toLowerCase() === 'message-id')?.value;
  const refersTo = unique([...ids(sentId ?? notification.mail?.commonHeaders?.messageId), ...headerRefs]);
  const type = (notification.notificationType ?? notification.eventType)!.toLowerCase();
  if (type === 'bounce') {
    const recipient = notification.bounce?.bouncedRecipients?.[0];
    const code = /[45]\.\d{1,3}\.\d{1,3}/.exec(`${recipient?.status ?? ''} ${recipient?.diagnosticCode ?? ''}`)?.[0] ?? null;
    return {
      ...none,
      kind: 'bounce',
      fromMailSystem: true,
      // Transient: a full mailbox, a message too large, a temporary failure; Permanent and Undetermined: the address does not take mail.
      bounceType: notification.bounce?.bounceType?.toLowerCase() === 'transient' ? 'soft' : 'hard',
      bounceCode: code,
      bouncedEmail: address(recipient?.emailAddress),
      refersTo,
    };
  }
  if (type === 'complaint' && notification.complaint?.complaintFeedbackType?.toLowerCase() !== 'not-spam')
    return {
      ...none,
      kind: 'bounce',
      fromMailSystem: true,
      complaint: true,
      bouncedEmail: address(notification.complaint?.complainedRecipients?.[0]?.emailAddress),
      refersTo,
    };
  // A delivery, a delay, an open or a click: news of the mail system, no bounce.
  return systemNotice(refersTo);
}
