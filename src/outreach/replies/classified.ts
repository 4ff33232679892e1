/** What a message that came back to an inbox is (classify.ts decides). */
export interface Classified {
  kind: 'reply' | 'bounce' | 'auto_reply';
  bounceType: 'hard' | 'soft' | null;
  /** The DSN's status (`5.1.1`), or the SMTP reply code found in the text. */
  bounceCode: string | null;
  /** The address a bounce or a complaint is about. */
  bouncedEmail: string | null;
  /** A complaint of the recipient's (an RFC 5965 abuse report, or a provider's complaint notice). */
  complaint: boolean;
  /** Message-IDs the message refers back to, most specific first (a returned message's own, then In-Reply-To, References). */
  refersTo: string[];
  /** A notice of the mail system, not of a person (a delay or success notice, a DMARC report): no out-of-office date is read in it. */
  fromMailSystem: boolean;
}

export const none = { bounceType: null, bounceCode: null, bouncedEmail: null, complaint: false, fromMailSystem: false } as const;

/** A notice of the mail system that is no bounce (a delay, a success, a DMARC report). */
export const systemNotice = (refersTo: string[]): Classified => ({ ...none, kind: 'auto_reply', fromMailSystem: true, refersTo });

/** `<local@domain>` tokens only: comments and junk around them in In-Reply-To are left out. */
export const ids = (value: string | string[] | undefined) =>
  [value ?? []]
    .flat()
    .join(' ')
    .match(/<[^<>\s]+@[^<>\s]+>/g) ?? [];

export const unique = (values: string[]) => [...new Set(values)];

/** The addresses in a field such as `rfc822; <a@b.c>` (address type, brackets and comments cut). */
export const addresses = (value: string | undefined) => (value ?? '').match(/[^\s<>;:"'@,()]+@[^\s<>;:"'@,()]+[^\s<>;:"'@,().]/g) ?? [];
export const address = (value: string | undefined) => addresses(value)[0] ?? null;
