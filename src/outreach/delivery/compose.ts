import type Mail from 'nodemailer/lib/mailer/index.js';
import { openPixelUrl, unsubscribeUrl } from './links.ts';
import { withTrackedLinks } from './tracked-links.ts';

export interface Outgoing {
  recordId: string;
  from: string;
  fromName: string;
  to: string;
  replyTo: string | null;
  subject: string;
  html: string;
  text: string;
  messageId: string;
  /** The message answered: the thread's first, for a reply step; the reply, for an answer to one. */
  inReplyTo: string | null;
  /** The thread's Message-IDs, oldest first (default: `inReplyTo` alone). */
  references?: string[] | null;
  trackOpens: boolean;
  /** Links in the body (not the unsubscribe link) go through /c/<token>, which counts the click. */
  trackClicks: boolean;
}

const escapeAttribute = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;');

/**
 * A message as nodemailer sends it: the rendered body (its links tracked
 * when asked) with an unsubscribe link (and the open pixel when asked),
 * RFC 8058 one-click unsubscribe headers, and threading headers for a reply
 * step or an answer to a reply.
 */
export function compose(message: Outgoing): Mail.Options {
  const unsubscribe = unsubscribeUrl(message.recordId);
  const footer = `<p><a href="${escapeAttribute(unsubscribe)}">Unsubscribe</a></p>`;
  const pixel = message.trackOpens ? `<img src="${escapeAttribute(openPixelUrl(message.recordId))}" width="1" height="1" alt="">` : '';
  return {
    from: { name: message.fromName, address: message.from },
    to: message.to,
    ...(message.replyTo && { replyTo: message.replyTo }),
    subject: message.subject,
    html: `${message.trackClicks ? withTrackedLinks(message.html, message.recordId) : message.html}${footer}${pixel}`,
    text: `${message.text}\n\nUnsubscribe: ${unsubscribe}\n`,
    messageId: message.messageId,
    ...(message.inReplyTo && { inReplyTo: message.inReplyTo, references: message.references ?? [message.inReplyTo] }),
    headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}
