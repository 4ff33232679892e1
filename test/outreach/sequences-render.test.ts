import { randomUUID } from 'node:crypto';
import { v5 as nameBasedId } from 'uuid';
import { describe, expect, it } from 'vitest';
import { renderStep, variantFor, type MergeLead } from '../../src/outreach/sequences/render-step.ts';
import { plainText } from '../../schema/outreach/sequence-html.ts';
import { getSequenceForSending } from '../../src/outreach/sequences/sequences.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

const lead = (fields: Partial<MergeLead> = {}): MergeLead => ({
  id: randomUUID(),
  full_name: 'Ada  Lovelace Byron',
  company: 'Analytical & Co <Ltd>',
  title: 'Founder',
  domain: 'acme.test',
  location: 'London',
  ...fields,
});

/** A sequence stored through the API (so bodies are as sanitized) and read back as the engine reads it. */
async function storedSequence(steps: unknown[]) {
  const { apiKey, workspaceId } = await createTestWorkspace('pro');
  const res = await server.request('POST', '/api/outreach/sequences', { key: apiKey, body: { name: 'Render', steps } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return getSequenceForSending(workspaceId, res.body.sequence.id);
}

describe('rendering a step for a lead', () => {
  it('fills merge variables, HTML-escaping lead values in the body, with fallbacks for missing ones', async () => {
    const sequence = await storedSequence([
      {
        subject: '{{first_name|there}}, a question for {{company}}',
        body_html:
          '<p>Hi {{first_name|there}},</p><p>How is {{title|work}} at <strong>{{company}}</strong> in {{location|your city}}? See <a href="https://{{domain}}/x?a=1&amp;b=2">your site</a>.</p>',
      },
    ]);
    expect(renderStep(sequence, 0, 0, lead())).toEqual({
      subject: 'Ada, a question for Analytical & Co <Ltd>',
      html: '<p>Hi Ada,</p><p>How is Founder at <strong>Analytical &amp; Co &lt;Ltd&gt;</strong> in London? See <a href="https://acme.test/x?a=1&amp;b=2">your site</a>.</p>',
      text: 'Hi Ada,\n\nHow is Founder at Analytical & Co <Ltd> in London? See your site (https://acme.test/x?a=1&b=2).',
    });
    const sparse = renderStep(sequence, 0, 0, lead({ full_name: '  ', title: null, location: '' }));
    expect(sparse).toMatchObject({ subject: 'there, a question for Analytical & Co <Ltd>' });
    expect((sparse as { html: string }).html).toContain('<p>Hi there,</p><p>How is work at');
    expect((sparse as { html: string }).html).toContain('in your city?');
  });

  it('skips a lead missing a variable that has no fallback, naming it', async () => {
    const sequence = await storedSequence([{ subject: 'For {{company}}', body_html: 'Hi {{first_name}}, about {{domain}}' }]);
    expect(renderStep(sequence, 0, 0, lead({ company: null }))).toEqual({ skipped: 'missing company' });
    expect(renderStep(sequence, 0, 0, lead({ full_name: null }))).toEqual({ skipped: 'missing first_name' });
    expect(renderStep(sequence, 0, 0, lead({ domain: ' ' }))).toEqual({ skipped: 'missing domain' });
  });

  it('sends a reply step as "Re: " and the rendered subject that opened the thread', async () => {
    const sequence = await storedSequence([
      { subject: 'Intro for {{company|you}}', body_html: 'First' },
      { body_html: 'Bump', thread_mode: 'reply', wait_days: 2 },
      { subject: 'New angle, {{first_name}}', body_html: 'Third', wait_days: 5 },
      { body_html: 'Last bump', thread_mode: 'reply', wait_days: 2 },
    ]);
    expect(renderStep(sequence, 1, 0, lead())).toMatchObject({
      subject: 'Re: Intro for Analytical & Co <Ltd>',
      html: 'Bump',
      text: 'Bump',
    });
    expect(renderStep(sequence, 1, 0, lead({ company: null }))).toMatchObject({ subject: 'Re: Intro for you' });
    expect(renderStep(sequence, 3, 0, lead())).toMatchObject({ subject: 'Re: New angle, Ada' });
    expect(renderStep(sequence, 3, 0, lead({ full_name: null }))).toEqual({ skipped: 'missing first_name' });
  });

  it('renders the version asked for, and a reply follows the version the lead got of the opening step', async () => {
    const sequence = await storedSequence([
      {
        subject: 'A',
        body_html: 'Body A',
        variants: [
          { subject: 'B', body_html: 'Body B' },
          { subject: 'C', body_html: 'Body C' },
        ],
      },
      { body_html: 'Bump', thread_mode: 'reply', wait_days: 1 },
    ]);
    expect(renderStep(sequence, 0, 2, lead())).toMatchObject({ subject: 'C', html: 'Body C' });
    expect(() => renderStep(sequence, 0, 3, lead())).toThrow(RangeError);
    expect(() => renderStep(sequence, 2, 0, lead())).toThrow(RangeError);
    for (let i = 0; i < 20; i++) {
      const someone = lead();
      const opened = renderStep(sequence, 0, variantFor(sequence.steps[0]!, someone.id), someone) as { subject: string };
      expect(renderStep(sequence, 1, 0, someone)).toMatchObject({ subject: `Re: ${opened.subject}` });
    }
  });

  it("spreads leads evenly and deterministically over a step's versions", async () => {
    const sequence = await storedSequence([
      {
        subject: 'A',
        body_html: 'A',
        variants: [
          { subject: 'B', body_html: 'B' },
          { subject: 'C', body_html: 'C' },
          { subject: 'D', body_html: 'D' },
        ],
      },
      { subject: 'Plain', body_html: 'No variants', wait_days: 1 },
    ]);
    const [withVariants, plain] = sequence.steps;
    // Fixed ids keep the test exact from run to run; they are as unrelated to each other as real ones.
    const leadIds = Array.from({ length: 400 }, (_, i) => nameBasedId(`lead ${i}`, '6ba7b811-9dad-11d1-80b4-00c04fd430c8'));
    const counts = [0, 0, 0, 0];
    for (const id of leadIds) counts[variantFor(withVariants!, id)]! += 1;
    // 100 expected each (standard deviation about 9).
    for (const count of counts) {
      expect(count).toBeGreaterThanOrEqual(65);
      expect(count).toBeLessThanOrEqual(135);
    }
    expect(leadIds.map((id) => variantFor(withVariants!, id))).toEqual(leadIds.map((id) => variantFor(withVariants!, id)));
    expect(new Set(leadIds.map((id) => variantFor(plain!, id)))).toEqual(new Set([0]));
  });

  it('writes the text part from the HTML', () => {
    expect(
      plainText(
        '<p>One &amp; <strong>two</strong></p><p>Three<br />four   five</p><a href="mailto:a@b.test">a@b.test</a> <a href="https://x.test">https://x.test</a>',
      ),
    ).toBe('One & two\n\nThree\nfour five\n\na@b.test https://x.test');
  });

  it('answers not_found for a sequence the workspace does not have', async () => {
    const { workspaceId } = await createTestWorkspace();
    await expect(getSequenceForSending(workspaceId, randomUUID())).rejects.toMatchObject({ code: 'not_found' });
  });
});
