import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Classified } from '../../src/outreach/replies/classified.ts';
import { classify } from '../../src/outreach/replies/classify.ts';

/**
 * The classifier over the whole of sisimai's set-of-emails (returned mail
 * from 60+ mail systems, feedback reports, auto-replies, and a few messages
 * from people), when a copy is on this machine: at MAIL_CORPUS_DIR, else at
 * the steering folder's shared fixtures. The corpus is not in the repository
 * (docs/testing-and-benchmarks.md); without it this file is skipped.
 */
const candidates = [process.env.MAIL_CORPUS_DIR, '/work/shared/fixtures/set-of-emails'].filter(Boolean) as string[];
const root = candidates.find((dir) => existsSync(join(dir, 'maildir')));
if (!root)
  console.log(`bounce-corpus: skipped, no set-of-emails copy with a maildir/ folder at ${candidates.join(' or ')} (set MAIL_CORPUS_DIR)`);

/** Line endings per folder: bsd LF, dos CRLF, mac CR (which no mail store hands over: IMAP and RFC 5322 lines end in CRLF). */
const folders = ['bsd', 'dos', 'mac', 'err', 'tmp', 'not'];

interface Sample {
  path: string;
  raw: string;
  got: Classified;
}

async function corpus(): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (const folder of folders) {
    const dir = join(root!, 'maildir', folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.eml'))) {
      let bytes = readFileSync(join(dir, name));
      if (folder === 'mac') bytes = Buffer.from(bytes.toString('latin1').replace(/\r(?!\n)/g, '\r\n'), 'latin1');
      const got = classify(await simpleParser(bytes, { keepDeliveryStatus: true }));
      samples.push({ path: `${folder}/${name}`, raw: bytes.toString('latin1'), got });
    }
  }
  return samples;
}

const label = ({ got }: Sample) =>
  got.kind === 'bounce' ? (got.complaint ? 'complaint' : `bounce:${got.bounceType}`) : got.fromMailSystem ? `${got.kind}:notice` : got.kind;
const wrong = (samples: Sample[]) => samples.map((s) => `${s.path} → ${label(s)}`);

describe.skipIf(!root)('the classifier over sisimai set-of-emails', () => {
  let all: Sample[] = [];
  const people = () => all.filter((s) => /^not\/is-not-bounce/.test(s.path));
  const autoReplies = () => all.filter((s) => /\/rfc3834-/.test(s.path));
  const feedback = () => all.filter((s) => /\/arf-/.test(s.path));
  const returned = () => all.filter((s) => !people().includes(s) && !autoReplies().includes(s) && !feedback().includes(s));

  beforeAll(async () => {
    all = await corpus();
  }, 120_000);

  it('reads every message of the corpus', () => {
    expect(all.length).toBeGreaterThan(800);
    const tally = (samples: Sample[]) => {
      const counts = new Map<string, number>();
      for (const sample of samples) counts.set(label(sample), (counts.get(label(sample)) ?? 0) + 1);
      return [...counts]
        .map(([key, n]) => `${key} ${n}`)
        .sort()
        .join(', ');
    };
    console.log(`bounce-corpus: ${root}: ${returned().length} returned mail and notices (${tally(returned())})`);
    console.log(`bounce-corpus: ${feedback().length} feedback reports (${tally(feedback())}); ${autoReplies().length} auto-replies`);
  });

  it('reads no returned mail or notice as a reply; a bounce has a type; a report of failed recipients is no delay, one of delays only no bounce', () => {
    const actions = (s: Sample) => [...s.raw.matchAll(/^Action:[ \t]*(\w+)/gim)].map((m) => m[1]!.toLowerCase());
    expect(wrong(returned().filter((s) => s.got.kind === 'reply'))).toEqual([]);
    expect(wrong(returned().filter((s) => s.got.kind === 'bounce' && !s.got.complaint && !s.got.bounceType))).toEqual([]);
    expect(wrong(returned().filter((s) => actions(s).includes('failed') && s.got.kind !== 'bounce'))).toEqual([]);
    const delaysOnly = returned().filter((s) => actions(s).length > 0 && actions(s).every((a) => a === 'delayed'));
    expect(delaysOnly.length).toBeGreaterThan(0);
    expect(wrong(delaysOnly.filter((s) => s.got.kind !== 'auto_reply' || !s.got.fromMailSystem))).toEqual([]);
  });

  it('reads every abuse complaint as a complaint, a DMARC failure report as no complaint, and none as a reply', () => {
    const dmarc = (s: Sample) => /^Feedback-Type:[ \t]*auth-failure/im.test(s.raw);
    // Apple Mail's unsubscribe request, sent to a List-Unsubscribe mailto: automatic, not a feedback report.
    const unsubscribe = (s: Sample) => /^X-Apple-Unsubscribe:/im.test(s.raw);
    expect(wrong(feedback().filter((s) => s.got.kind === 'reply'))).toEqual([]);
    expect(wrong(feedback().filter((s) => !dmarc(s) && !unsubscribe(s) && !s.got.complaint))).toEqual([]);
    expect(wrong(feedback().filter((s) => dmarc(s) && (s.got.complaint || !s.got.fromMailSystem)))).toEqual([]);
  });

  it('reads the RFC 3834 auto-replies as automatic replies, and the messages from people as replies', () => {
    expect(autoReplies().length).toBeGreaterThan(0);
    expect(wrong(autoReplies().filter((s) => s.got.kind !== 'auto_reply'))).toEqual([]);
    expect(people().length).toBeGreaterThan(0);
    expect(wrong(people().filter((s) => s.got.kind !== 'reply'))).toEqual([]);
  });
});
