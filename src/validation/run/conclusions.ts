import type { EmailStatus } from '../../../schema/validation.ts';
import type { RcptVerdict } from '../checks/smtp-probe.ts';

/** What an address came to, with the reason the API shows (ValidationResult `reason`). */
export interface Conclusion {
  status: EmailStatus;
  reason: string;
  detail: string | null;
}

/** What one try at an address gave: a conclusion, or a temporary answer to ask again after. */
export type Outcome = { kind: 'final'; conclusion: Conclusion } | { kind: 'temporary'; reason: string };

export const final = (status: EmailStatus, reason: string, detail: string | null = null): Outcome => ({
  kind: 'final',
  conclusion: { status, reason, detail },
});

/** The server refused the conversation itself (our address or name), not the mailbox: words of blocklists and policy. */
const policyWords =
  /\b(block(ed|list)?|black ?list|spam|poli(cy|cies)|reputation|listed|rbl|dnsbl|denied|not permitted|banned|abuse|client host|helo|reverse dns|ptr)\b/i;
/** Words for a mailbox that does not exist. */
const noMailboxWords =
  /\b(user|mailbox|recipient|address|account)\b.*\b(unknown|not (found|exist|valid|available)|does ?n[o']t exist|no such|invalid|unavailable)\b|\bno such (user|mailbox|recipient|address)\b|\bunknown (user|recipient|mailbox)\b|\bundeliverable\b/i;

/** The enhanced status code (RFC 3463) at the start of a reply's text, e.g. `5.1.1`. */
const enhancedCode = (text: string) => /^([245])\.(\d{1,3})\.(\d{1,3})\b/.exec(text.trim())?.slice(1).map(Number) ?? null;

/**
 * A permanent (5xx) refusal of RCPT TO, read as a verdict about the mailbox
 * only when it says so. The enhanced status code (RFC 3463) decides first:
 * 5.1.x (bad mailbox) and 5.2.1 (disabled) are `invalid`, 5.2.2 (full) and
 * 5.7.x (the check itself refused: policy, blocklists) `unknown`, as is
 * Microsoft 365's 5.4.1 "Recipient address rejected" an unknown mailbox.
 * Without one, words of policy make it `unknown`, words of a missing
 * mailbox or a bare 550/551/553 `invalid`.
 */
export function rejection(code: number, text: string): Conclusion {
  const detail = `${code} ${text}`.trim();
  const conclude = (status: EmailStatus, reason: string) => ({ status, reason, detail });
  const [, subject, specific] = enhancedCode(text) ?? [];
  if (subject === 1) return conclude('invalid', 'mailbox_not_found');
  if (subject === 2 && specific === 1) return conclude('invalid', 'mailbox_disabled');
  if (subject === 2 && specific === 2) return conclude('unknown', 'mailbox_full');
  if (subject === 7) return conclude('unknown', 'blocked');
  if (subject === 4 && specific === 1 && /recipient address rejected/i.test(text)) return conclude('invalid', 'mailbox_not_found');
  if (policyWords.test(text)) return conclude('unknown', 'blocked');
  if (noMailboxWords.test(text)) return conclude('invalid', 'mailbox_not_found');
  if (code === 552) return conclude('unknown', 'mailbox_full');
  if (code === 550 || code === 551 || code === 553) return conclude('invalid', 'mailbox_not_found');
  return conclude('unknown', 'blocked');
}

/**
 * What a domain's mail server answers for a made-up address at it: `true`
 * when it accepts it (catch-all), `false` when it refuses it for good,
 * undefined when the answer was temporary (ask again).
 */
export function catchAllAnswer(verdict: RcptVerdict): boolean | undefined {
  if (verdict.kind === 'accepted') return true;
  if (verdict.kind === 'rejected') return false;
  return undefined;
}

/**
 * An RCPT answer for a real address, given the domain's catch-all answer:
 * accepted by a catch-all server is `accept_all`, by one that refuses
 * made-up addresses `valid`; accepted while the catch-all answer is still
 * pending is asked again with it.
 */
export function rcptOutcome(verdict: RcptVerdict, catchAll: boolean | undefined): Outcome {
  if (verdict.kind === 'temporary') return { kind: 'temporary', reason: verdict.reason };
  if (verdict.kind === 'rejected') return { kind: 'final', conclusion: rejection(verdict.code, verdict.text) };
  if (catchAll === undefined) return { kind: 'temporary', reason: 'accepted, but the catch-all check got a temporary answer' };
  return catchAll ? final('accept_all', 'accepted_any_address') : final('valid', 'accepted');
}
