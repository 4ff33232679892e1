import { z } from 'zod';

/** Email validation's vocabulary, shared by the lead and validation contracts. */

/** The verdicts of email validation, as stored on a lead's `email_status`. */
export const emailStatuses = ['valid', 'invalid', 'accept_all', 'disposable', 'unknown'] as const;
export type EmailStatus = (typeof emailStatuses)[number];
export const emailStatus = z.enum(emailStatuses).meta({ id: 'EmailStatus', description: 'A verdict of email validation.' });
/** Verdicts that spend a validation credit; `unknown` is free. */
export const billableStatuses: readonly EmailStatus[] = ['valid', 'invalid', 'accept_all', 'disposable'];

export const emailStatusText =
  '`valid` (the mail server accepted the address and rejects made-up ones at its domain), ' +
  '`invalid` (bad syntax, a domain that takes no mail, or a mailbox the server says does not exist), ' +
  '`accept_all` (the server accepts every address at the domain, a made-up one too, so this one cannot be told apart), ' +
  '`disposable` (a throwaway-mail domain), ' +
  '`unknown` (no conclusive answer: greylisting or other temporary answers on every try, a server that blocked the check, a full mailbox, or a mail host that is not a public address)';

export const emailProviderText =
  "Mailbox provider told from the domain's MX hosts: `google`, `microsoft`, `yahoo`, `zoho`, `proton` or `other`; null when the domain has no mail host";
