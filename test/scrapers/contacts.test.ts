import { describe, expect, it } from 'vitest';
import { extractContacts, looksLikeName } from '../../scrapers/contacts.ts';

const page = (body: string, head = '') =>
  `<!doctype html><html><head><title>Acme Pay | Team</title>${head}</head><body>${body}</body></html>`;
const people = (html: string) => extractContacts(html, 'https://acme.test/team').people;
const emails = (html: string) => extractContacts(html, 'https://acme.test/team').emails;

describe('contact extraction', () => {
  it('reads JSON-LD people, nested in an organisation, with their addresses and LinkedIn profiles', () => {
    const data = {
      '@context': 'https://schema.org',
      '@graph': [
        {
          '@type': 'Organization',
          name: 'Acme Pay',
          description: 'Payments for small shops',
          address: { '@type': 'PostalAddress', addressLocality: 'Berlin' },
          employee: [
            {
              '@type': 'Person',
              name: 'Jürgen Weiß',
              jobTitle: 'CFO',
              email: 'mailto:Juergen@Acme.test',
              sameAs: ['https://www.linkedin.com/in/jweiss'],
            },
          ],
          founder: { '@type': 'Person', name: 'Zoë Müller', jobTitle: 'Co-Founder & CEO' },
        },
      ],
    };
    const found = extractContacts(page('', `<script type="application/ld+json">${JSON.stringify(data)}</script>`), 'https://acme.test/');
    expect(found.people).toEqual([
      { name: 'Jürgen Weiß', title: 'CFO', email: 'juergen@acme.test', linkedin_url: 'https://www.linkedin.com/in/jweiss', phone: null },
      { name: 'Zoë Müller', title: 'Co-Founder & CEO', email: null, linkedin_url: null, phone: null },
    ]);
    expect(found.organization).toEqual({ name: 'Acme Pay', description: 'Payments for small shops', locality: 'Berlin' });
  });

  it('pairs names with titles and addresses in cards, tables, lists and sentences, obfuscated forms included', () => {
    const found = people(
      page(`
      <div class="member"><h3>Ada Lovelace</h3><p>Chief Technology Officer</p><a href="mailto:ada@acme.test">Email</a>
        <a href="https://www.linkedin.com/in/ada">in</a></div>
      <div class="member"><p class="role">CEO</p><h3>Grace Hopper</h3><p>grace [at] acme [dot] test</p></div>
      <table><tr><th>Name</th><th>Role</th><th>Email</th></tr><tr><td>Anna Schmidt</td><td>Product Manager</td><td>anna.schmidt (at) acme (dot) test</td></tr></table>
      <ul><li>Tom O'Neil — VP Engineering <span>tom&#64;acme&#46;test</span></li><li>Inès Van Dijk, Head of Sales</li></ul>
      <p>As our Office Manager, Lukas Berg keeps everything running. lukas@acme.test</p>
      <span class="__cf_email__" data-cfemail="4131332432326f2e27272822240120222c246f35243235">[email protected]</span>`),
    );
    const byName = Object.fromEntries(found.map((p) => [p.name, p]));
    expect(byName['Ada Lovelace']).toMatchObject({
      title: 'Chief Technology Officer',
      email: 'ada@acme.test',
      linkedin_url: 'https://www.linkedin.com/in/ada',
    });
    expect(byName['Grace Hopper']).toMatchObject({ title: 'CEO', email: 'grace@acme.test' });
    expect(byName['Anna Schmidt']).toMatchObject({ title: 'Product Manager', email: 'anna.schmidt@acme.test' });
    expect(byName["Tom O'Neil"]).toMatchObject({ title: 'VP Engineering', email: 'tom@acme.test' });
    expect(byName['Inès Van Dijk']).toMatchObject({ title: 'Head of Sales', email: null });
    expect(byName['Lukas Berg']).toMatchObject({ title: 'Office Manager', email: 'lukas@acme.test' });
    expect(found).toHaveLength(6);
  });

  it("decodes addresses behind Cloudflare's email protection", () => {
    expect(
      emails(
        page('<p>Press: <a class="__cf_email__" data-cfemail="4131332432326f2e27272822240120222c246f35243235">[email protected]</a></p>'),
      ),
    ).toEqual(['press.office@acme.test']);
  });

  it("keeps quoted customers out, gives nobody a generic address or someone else's, and lists every address", () => {
    const found = extractContacts(
      page(`
      <div class="team"><div><h3>Ada Lovelace</h3><p>CTO</p></div><div><h3>Grace Hopper</h3><p>CEO</p></div><p>Write to info@acme.test or ada.lovelace@acme.test</p></div>
      <blockquote>“Great product.” — Jane Roe, CTO at Other Corp</blockquote>
      <div class="testimonial"><p>Jim Beam</p><p>CEO</p></div>
      <p>Meet Bob Smith, CTO at Somewhere Else.</p>`),
      'https://acme.test/team',
    );
    expect(found.people.map((p) => p.name).sort()).toEqual(['Ada Lovelace', 'Grace Hopper']);
    expect(found.people.find((p) => p.name === 'Ada Lovelace')!.email).toBe('ada.lovelace@acme.test');
    expect(found.people.find((p) => p.name === 'Grace Hopper')!.email).toBeNull();
    expect(found.emails).toEqual(['ada.lovelace@acme.test', 'info@acme.test']);
  });

  it('merges a person shown twice, keeping the most complete record', () => {
    const data = { '@type': 'Person', name: 'Ada Lovelace', jobTitle: 'CTO' };
    const found = people(
      page(
        '<div class="member"><h3>Ada Lovelace</h3><p>CTO</p><a href="mailto:ada@acme.test">mail</a></div>',
        `<script type="application/ld+json">${JSON.stringify(data)}</script>`,
      ),
    );
    expect(found).toEqual([{ name: 'Ada Lovelace', title: 'CTO', email: 'ada@acme.test', linkedin_url: null, phone: null }]);
  });

  it('tells names from headings and titles', () => {
    for (const name of ['Ada Lovelace', 'Zoë Müller', "Tom O'Neil", 'Inès Van Dijk', 'Jean-Luc Picard', 'Ludwig van Beethoven'])
      expect(looksLikeName(name), name).toBe(true);
    for (const text of ['Our Team', 'Contact Us', 'Head of Sales', 'Chief Technology Officer', 'Acme Pay GmbH', 'Berlin', 'Read More Here'])
      expect(looksLikeName(text), text).toBe(false);
  });
});
