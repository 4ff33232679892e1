import { describe, expect, it } from 'vitest';
import { rcptOutcome, rejection } from '../../src/validation/run/conclusions.ts';

/** What a mail server's refusal at RCPT TO says of the mailbox, as real servers word it. */
describe('reading an RCPT refusal', () => {
  it.each([
    [550, '5.1.1 The email account that you tried to reach does not exist.', 'invalid', 'mailbox_not_found'], // Gmail
    [550, '5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', 'invalid', 'mailbox_not_found'], // Microsoft 365
    [550, '5.4.1 Recipient address rejected: Access denied. AS(201806281)', 'invalid', 'mailbox_not_found'], // Microsoft 365 directory check
    [550, '5.2.1 The email account that you tried to reach is disabled.', 'invalid', 'mailbox_disabled'],
    [552, '5.2.2 The email account that you tried to reach is over quota.', 'unknown', 'mailbox_full'],
    [554, '5.7.1 Service unavailable; Client host [203.0.113.9] blocked using zen.spamhaus.org', 'unknown', 'blocked'],
    [550, 'Requested action not taken: mailbox unavailable', 'invalid', 'mailbox_not_found'],
    [550, 'No such user here', 'invalid', 'mailbox_not_found'],
    [550, 'Message rejected due to local policy', 'unknown', 'blocked'],
    [550, '', 'invalid', 'mailbox_not_found'],
    [553, "sorry, that domain isn't in my list of allowed rcpthosts", 'invalid', 'mailbox_not_found'],
    [554, 'Transaction failed', 'unknown', 'blocked'],
  ])('%i %s → %s (%s)', (code, text, status, reason) => {
    expect(rejection(code, text)).toEqual({ status, reason, detail: `${code} ${text}`.trim() });
  });
});

describe('an RCPT answer for a real address', () => {
  it('is valid where made-up addresses are refused, accept_all where they are accepted, and asked again while that is not known', () => {
    const accepted = { kind: 'accepted', code: 250 } as const;
    expect(rcptOutcome(accepted, false)).toEqual({ kind: 'final', conclusion: { status: 'valid', reason: 'accepted', detail: null } });
    expect(rcptOutcome(accepted, true)).toEqual({
      kind: 'final',
      conclusion: { status: 'accept_all', reason: 'accepted_any_address', detail: null },
    });
    expect(rcptOutcome(accepted, undefined)).toMatchObject({ kind: 'temporary' });
    expect(rcptOutcome({ kind: 'temporary', reason: '451 4.7.1 Greylisted' }, false)).toEqual({
      kind: 'temporary',
      reason: '451 4.7.1 Greylisted',
    });
    expect(rcptOutcome({ kind: 'rejected', code: 550, text: '5.1.1 Unknown user' }, true)).toMatchObject({
      kind: 'final',
      conclusion: { status: 'invalid' },
    });
  });
});
