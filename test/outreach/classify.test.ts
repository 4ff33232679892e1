import { readFileSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import type { Classified } from '../../src/outreach/replies/classified.ts';
import { classify, outOfOfficeUntil } from '../../src/outreach/replies/classify.ts';

// The fixtures and where they come from: test/fixtures/mail/README.md.
const fixture = (name: string) =>
  simpleParser(readFileSync(new URL(`../fixtures/mail/${name}`, import.meta.url)), { keepDeliveryStatus: true });
const inline = (head: string, body = 'Thanks, noted.') =>
  simpleParser(
    `From: Dana <dana@northwind.example>\r\nTo: sam@outreach.example\r\nDate: Wed, 25 Nov 2026 10:00:00 +0000\r\n${head}\r\n\r\n${body}\r\n`,
    {
      keepDeliveryStatus: true,
    },
  );

const none = { bounceType: null, bounceCode: null, bouncedEmail: null, complaint: false, fromMailSystem: false } as const;
const bounce = (bounceType: 'hard' | 'soft', bounceCode: string | null, bouncedEmail: string | null, refersTo: string[]): Classified => ({
  kind: 'bounce',
  bounceType,
  bounceCode,
  bouncedEmail,
  complaint: false,
  refersTo,
  fromMailSystem: true,
});
const automatic = (refersTo: string[] = []): Classified => ({ ...none, kind: 'auto_reply', refersTo });
/** A notice of the mail system that is no bounce (a delay, a DMARC report). */
const systemNotice = (refersTo: string[]): Classified => ({ ...automatic(refersTo), fromMailSystem: true });

describe('classify, on messages from real mail systems', () => {
  it.each<[string, string, Classified]>([
    // The address we sent to (Original-Recipient), not the local alias it expanded to (Final-Recipient r@p351355…).
    ['Postfix, user unknown after an alias', 'lhost-postfix-01.eml', bounce('hard', '5.1.1', 'kijitora@example.org', [])],
    [
      'Postfix, mailbox full',
      'lhost-postfix-63.eml',
      bounce('soft', '5.2.2', 'neko@nyaaan.example.org', ['<BA77602D-7E1E-4C1B-92C9-4A2324E3E141@example.jp>']),
    ],
    [
      'Exim, status in the text only',
      'lhost-exim-01.eml',
      bounce('hard', '5.7.0', 'kijitora@example.ed.jp', ['<E1P1ce6-000Egt-GZ@e1.example.org>']),
    ],
    [
      'Sendmail, user unknown',
      'lhost-sendmail-01.eml',
      bounce('hard', '5.1.1', 'userunknown@bouncehammer.jp', ['<E1C50F1B-1C83-4820-BC36-AC6FBFBE8568@example.org>']),
    ],
    [
      'Sendmail, given up after 4.4.7',
      'lhost-sendmail-08.eml',
      bounce('soft', '4.4.7', 'neko@example.org', ['<0000000000000000000000000000@example.co.jp>']),
    ],
    [
      'Office 365 with a status part',
      'lhost-office365-11.eml',
      bounce('hard', '5.1.1', 'kijitora@cr3.neko.nyaan.jp', [
        '<SLXP216MB0381A4F513CF42F0FCDA0E2FA9250@SLXP216MB0381.KORP216.PROD.OUTLOOK.COM>',
      ]),
    ],
    // Auto-Submitted and Precedence: bulk too, but a report of the mail system is a bounce first.
    [
      'Office 365, status in the text only',
      'lhost-office365-01.eml',
      bounce('hard', '5.1.10', 'kijitora@example.com', ['<FFFFFFFF.EEEEEEEE@example.ed.jp>']),
    ],
    [
      'Gmail, X-Failed-Recipients and no report part',
      'lhost-gmail-01.eml',
      bounce('hard', '5.1.1', 'userunknown@example.jp', ['<D992C2C3-F175-4C4D-97E2-53A90E4E5BF5@gmail.com>']),
    ],
    [
      'AOL, fields with no blank line between recipients',
      'rhost-aol-03.eml',
      bounce('soft', '5.2.2', 'sabineko@example.jp', ['<B4275A84-198A-4453-A5F3-0DB49E352EAD@aol.example.jp>']),
    ],
    [
      'McAfee, one field block with the reply code only',
      'lhost-mcafee-01.eml',
      bounce('hard', '550', 'kijitora@example.co.jp', ['<000000000000000000000.shironeko@example.jp>']),
    ],
    // kuroneko@ is the address the message went to; it forwards to kijitora@example.ne.jp, which failed.
    [
      'qmail, failure notice',
      'lhost-qmail-01.eml',
      bounce('hard', '5.5.0', 'kuroneko@example.com', ['<000000000.9999999999999.JavaMail.postmaster@mailhub>']),
    ],
  ])('%s is a bounce (%s)', async (_, name, expected) => {
    expect(classify(await fixture(name))).toEqual(expected);
  });

  it.each<[string, string, Classified]>([
    ['Hotmail, Action: delayed', 'lhost-outlook-06.eml', systemNotice(['<BAY182-W4180385B0DABF89EB94B34A9300@phx.gbl>'])],
    ['Gmail, a delay in the text only', 'lhost-gmail-06.eml', systemNotice(['<A4D6026C-0699-460F-9F86-C2A5CB4BE6CE@gmail.com>'])],
  ])('a delay is no bounce: %s (%s)', async (_, name, expected) => {
    expect(classify(await fixture(name))).toEqual(expected);
  });

  it('an ARF abuse report is a complaint about the recipient, naming the returned message', async () => {
    expect(classify(await fixture('arf-17.eml'))).toEqual({
      ...none,
      kind: 'bounce',
      complaint: true,
      fromMailSystem: true,
      bouncedEmail: 'kijitora@example.com',
      refersTo: ['<EEEEEEEE-0000-0000-0000-EEEEEEEE2222@example.net>'],
    });
  });

  it('a DMARC failure report in ARF is no complaint', async () => {
    expect(classify(await fixture('arf-19.eml'))).toEqual(systemNotice(['<000000000.2222222.0000000000002@example.net>']));
  });

  it.each<[string, string[]]>([
    ['rfc3834-01.eml', []],
    ['rfc3834-02.eml', []],
    ['rfc3834-03.eml', ['<25203A4E-F90F-4A14-BF51-3E7B9D39BE8E@libsisimai.org>']],
    ['rfc3834-04.eml', []],
    ['rfc3834-06.eml', []],
    ['handmade-exchange-ooo-de.eml', ['<Njc1MWMwYTJlNGIwZjFhM2M5ZDJlODQ1OjA.ntVW_QFC@outreach.example>']],
  ])('%s is an automatic reply', async (name, refersTo) => {
    expect(classify(await fixture(name))).toEqual(automatic(refersTo));
  });

  it('a human reply with quoted history and no In-Reply-To is a reply referring to nothing', async () => {
    expect(classify(await fixture('handmade-reply-quoted-no-in-reply-to.eml'))).toEqual({ ...none, kind: 'reply', refersTo: [] });
  });

  it('a reply refers to In-Reply-To, then References newest first, each once', async () => {
    expect(classify(await fixture('handmade-reply-html-only.eml'))).toEqual({
      ...none,
      kind: 'reply',
      refersTo: [
        '<Njc1MWMwZjdlNGIwZjFhM2M5ZDJlOTExOjA.C17452m-@outreach.example>',
        '<Njc1MWMwYTJlNGIwZjFhM2M5ZDJlODQ1OjI.MDBCg_0B@outreach.example>',
        '<Njc1MWMwYTJlNGIwZjFhM2M5ZDJlODQ1OjE.PdWuwUwZ@outreach.example>',
      ],
    });
  });
});

describe('classify, on hand-made returned mail without an RFC 3464 report, and complaints', () => {
  const ours = (id: string) => `<${id}@outreach.example>`;
  const complaint = (bouncedEmail: string, refersTo: string[]): Classified => ({
    ...none,
    kind: 'bounce',
    complaint: true,
    fromMailSystem: true,
    bouncedEmail,
    refersTo,
  });

  it.each<[string, string, Classified]>([
    [
      'an Amazon SES bounce notice in its SNS envelope, a long line wrapped inside the JSON',
      'handmade-ses-bounce-sns.eml',
      bounce('hard', '5.1.1', 'priya.raman@contoso-labs.example', [ours('Njc2YTFiMmMzZDRlNWY2MDcxODI5M2E0OjA.Qw3rT9xZ')]),
    ],
    [
      'Apache James at a carrier: "Re:" from post_master, the recipient on its RCPT TO line',
      'handmade-james-bounce.eml',
      bounce('hard', '550', '5550142@txt.carrierone.example', [ours('Njc2YTE5ZDhlN2Y2MDUxNDIzYTJiMWMwOjA.Lm4nB7cX')]),
    ],
    // The list's address is the one we sent to: the message it refers to names it.
    [
      "a mailing list manager's refusal (not a member)",
      'handmade-list-refusal.eml',
      bounce('hard', null, null, [ours('Njc2YTFhYjJjM2Q0ZTVmNjA3MThiOWMwOjA.Tz6yW1kR')]),
    ],
    [
      'an MMS gateway\'s "Undeliverable Message" with the original headers in the text',
      'handmade-mms-undeliverable.eml',
      bounce('hard', null, '4155550199@pix.carriertwo.example', [ours('Njc2YTFkZTVmNjA3MTgyOTNhNGI1YzZkOjA.Vc2hX8qL')]),
    ],
    [
      'OpenSMTPD giving up (envelope expired): soft',
      'handmade-opensmtpd-expired.eml',
      bounce('soft', null, 'olu.adeyemi@harbor-freight-co.example', [ours('Njc2YTFlZjYwNzE4MjkzYTRiNWM2ZDdlOjA.Pq9sD4eF')]),
    ],
    [
      "a Sendmail bounce forwarded by a person, quoted: the returned message's id first",
      'handmade-sendmail-forwarded.eml',
      bounce('hard', '5.1.1', 'w.okafor@lagos-textiles.example', [
        ours('Njc2YTFmMDcxODI5M2E0YjVjNmQ3ZThmOjA.Rb5tK0jM'),
        '<202611261655.5AQGt2Ab031877@mail.outreach.example>',
      ]),
    ],
    [
      'a German "Unzustellbar:" from a sender that looks like anyone, the copy attached',
      'handmade-bounce-de.eml',
      bounce('hard', '5.1.1', 'h.kunz@werkzeugbau-kunz.example', [ours('Njc2YTIwMTgyOTNhNGI1YzZkN2U4ZjkwOjA.Xy7uM3bA')]),
    ],
    [
      'a Japanese mailbox-full notice from a no-reply sender: soft',
      'handmade-bounce-ja.eml',
      bounce('soft', null, 'sato.haruki@mobile.kaisha-tsushin.example', [ours('Njc2YTIxMjkzYTRiNWM2ZDdlOGY5MDFhOjA.Gh2jN6cD')]),
    ],
    [
      'an RFC 5965 abuse report',
      'handmade-arf-abuse.eml',
      complaint('elena.vasquez@greenfield-farms.example', [ours('Njc2YTIyM2E0YjVjNmQ3ZThmOTAxYTJiOjA.Jk3mP8wE')]),
    ],
    [
      'an Amazon SES complaint notice',
      'handmade-ses-complaint.eml',
      complaint('marcus.lindqvist@fjord-analytics.example', [ours('Njc2YTFjNGQ1ZTZmNzA4MTkyYTNiNGM1OjE.Hk8pZ2vN')]),
    ],
    [
      'a complaint notice with the message attached, not in ARF',
      'handmade-complaint-notice.eml',
      complaint('tom.nakamura@webmail-giant.example', [ours('Njc2YTIzNGI1YzZkN2U4ZjkwMWEyYjNjOjA.Wn5rQ2tY')]),
    ],
  ])('%s (%s)', async (_, name, expected) => {
    expect(classify(await fixture(name))).toEqual(expected);
  });

  it.each<[string, string, string[]]>([
    [
      'who mentions being away, a full mailbox, an undeliverable note and a 550 code, over a quoted header block',
      'handmade-reply-mentions-undeliverable.eml',
      [ours('Njc2YTI0NWM2ZDdlOGY5MDFhMmIzYzRkOjE.Fs8vL1nU'), ours('Njc2YTI0NWM2ZDdlOGY5MDFhMmIzYzRkOjA.Bd4wK7mH')],
    ],
    [
      'who forwards our message to a colleague',
      'handmade-reply-forwarded-to-colleague.eml',
      [ours('Njc2YTI1NmQ3ZThmOTAxYTJiM2M0ZDVlOjA.Cy9xM4pJ')],
    ],
  ])('a person %s is a reply (%s)', async (_, name, refersTo) => {
    expect(classify(await fixture(name))).toEqual({ ...none, kind: 'reply', refersTo });
  });
});

describe('classify, on automatic-reply headers', () => {
  it.each<[string, Classified['kind']]>([
    ['Subject: Re: Pricing\r\nAuto-Submitted: auto-replied', 'auto_reply'],
    ['Subject: Re: Pricing\r\nAuto-Submitted: auto-generated', 'auto_reply'],
    ['Subject: Re: Pricing\r\nAuto-Submitted: no', 'reply'],
    ['Subject: Re: Pricing\r\nX-Autoreply: yes', 'auto_reply'],
    ['Subject: Re: Pricing\r\nX-Autorespond: Re: Pricing', 'auto_reply'],
    ['Subject: Re: Pricing\r\nPrecedence: auto_reply', 'auto_reply'],
    ['Subject: Re: Pricing\r\nPrecedence: bulk', 'auto_reply'],
    ['Subject: Re: Pricing\r\nPrecedence: junk', 'auto_reply'],
    ['Subject: Re: Pricing\r\nPrecedence: list', 'reply'],
    ['Subject: Re: Pricing\r\nX-Auto-Response-Suppress: All\r\nX-MS-Exchange-Inbox-Rules-Loop: dana@northwind.example', 'auto_reply'],
    // Outlook sets X-Auto-Response-Suppress on messages people send too: alone it says nothing.
    ['Subject: Re: Pricing\r\nX-Auto-Response-Suppress: All', 'reply'],
    ['Subject: Out of Office: Pricing', 'auto_reply'],
    ['Subject: Automatic reply: Pricing', 'auto_reply'],
    ['Subject: Automatische Antwort: Preise', 'auto_reply'],
    ['Subject: Abwesenheitsnotiz: Preise', 'auto_reply'],
    ['Subject: Re: Out of office next week?', 'reply'],
    ['Subject: Re: Pricing', 'reply'],
  ])('%j is %s', async (head, kind) => {
    expect(classify(await inline(head))).toEqual({ ...none, kind, refersTo: [] });
  });
});

describe('outOfOfficeUntil', () => {
  const receivedAt = new Date('2026-11-25T10:00:00Z');

  it.each<[string, string | null]>([
    ['I am back on 2 December.', '2026-12-02'],
    ['Out of office until 12/03/2026, limited access to email.', '2026-12-03'],
    ['I am returning Monday, December 7.', '2026-12-07'],
    ['Ich bin bis zum 3. Dezember nicht im Büro.', '2026-12-03'],
    ['Back on 2026-12-03.', '2026-12-03'],
    ['Ich bin ab dem 7.12. wieder im Büro.', '2026-12-07'],
    ['Away until Dec 3rd, 2026.', '2026-12-03'],
    ['I am out from 1 December until 7 December.', '2026-12-07'],
    ['Ich bin vom 1. bis 5. Dezember im Urlaub.', '2026-12-05'],
    ['Travelling on December 10-18 with limited access.', '2026-12-18'],
    ["I'm out of the office Friday.", null],
    ['Our webinar is on 3 December.', null],
    ['Back on 2 December 2025.', null],
    ['Back on 2 March 2027.', null],
    ['Back at 9.30 tomorrow.', null],
    // The start of the day it came in is not after it; the next 25 November is too far.
    ['Back on 25 November.', null],
  ])('%j → %s', async (body, day) => {
    const mail = await inline('Subject: Out of office', body);
    expect(outOfOfficeUntil(mail, receivedAt)).toEqual(day && new Date(`${day}T00:00:00Z`));
  });

  it('reads a date with no year as the next one to come, and slashes the other way when the US order is out of range', async () => {
    expect(outOfOfficeUntil(await inline('Subject: Away', 'Back on 5 January.'), new Date('2026-12-20T08:00:00Z'))).toEqual(
      new Date('2027-01-05T00:00:00Z'),
    );
    expect(outOfOfficeUntil(await inline('Subject: Away', 'Back on 12/03/2026.'), new Date('2026-02-20T08:00:00Z'))).toEqual(
      new Date('2026-03-12T00:00:00Z'),
    );
  });

  it('reads the subject and own text of auto-replies, not quoted history', async () => {
    const rfc3834 = await fixture('rfc3834-01.eml');
    expect(outOfOfficeUntil(rfc3834, rfc3834.date!)).toEqual(new Date('2005-05-05T00:00:00Z'));
    const german = await fixture('handmade-exchange-ooo-de.eml');
    expect(outOfOfficeUntil(german, german.date!)).toEqual(new Date('2026-12-03T00:00:00Z'));
    // The quoted message's "valid until 15 December" is left out.
    const reply = await fixture('handmade-reply-quoted-no-in-reply-to.eml');
    expect(outOfOfficeUntil(reply, reply.date!)).toEqual(new Date('2026-12-03T00:00:00Z'));
  });

  it('reads the Exchange out-of-office fixtures', async () => {
    const traveling = await fixture('rfc3834-04.eml');
    // "July 10-31", received on its Delivery-date (17 Jul 2013 23:34:45 -0500); from its Date header (16 Mar) that is over 90 days away.
    expect(outOfOfficeUntil(traveling, new Date('2013-07-18T04:34:45Z'))).toEqual(new Date('2013-07-31T00:00:00Z'));
    expect(outOfOfficeUntil(traveling, traveling.date!)).toBeNull();
    // "out of the office Friday": a weekday alone is no date.
    const friday = await fixture('rfc3834-02.eml');
    expect(outOfOfficeUntil(friday, friday.date!)).toBeNull();
  });
});
