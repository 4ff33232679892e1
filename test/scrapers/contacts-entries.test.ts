import { describe, expect, it } from 'vitest';
import { extractContacts } from '../../scrapers/contacts.ts';

/**
 * Titles and addresses belong to the entry a name heads (its card, row,
 * list item, paragraph or sentence), never to a colleague: above all when
 * colleagues share a surname, or one's surname is another's given name.
 */
const page = (body: string) =>
  `<!doctype html><html><head><title>Acme Pay | Team</title></head><body><h1>Our team</h1>${body}</body></html>`;
type Expected = Record<string, { title: string; email: string | null }>;

function expectPeople(body: string, expected: Expected) {
  const found = extractContacts(page(body), 'https://acme.test/team').people;
  const byName = new Map(found.map((p) => [p.name, p]));
  for (const [name, want] of Object.entries(expected)) {
    expect(byName.get(name), `${name} among ${found.map((p) => p.name).join(', ')}`).toMatchObject(want);
  }
  // Nobody holds an address that is not their own.
  for (const person of found)
    if (person.email) expect(person.email, person.name).toBe(expected[person.name]?.email ?? 'an address of nobody named here');
  return found;
}

describe('entries of a team page', () => {
  it('reads plain entries ("Name, Title. Reach out: address"), one a paragraph, with colleagues sharing a surname', () => {
    expectPeople(
      `<p>Anna Schmidt, CTO. Reach out: anna.schmidt@acme.test</p>
       <p>Lukas Schmidt, Head of Sales. Reach out: lukas.schmidt@acme.test</p>
       <p>Omar Haddad, Chief Financial Officer. Reach out: omar.haddad@acme.test</p>`,
      {
        'Anna Schmidt': { title: 'CTO', email: 'anna.schmidt@acme.test' },
        'Lukas Schmidt': { title: 'Head of Sales', email: 'lukas.schmidt@acme.test' },
        'Omar Haddad': { title: 'Chief Financial Officer', email: 'omar.haddad@acme.test' },
      },
    );
  });

  it('reads entries on lines of one block, addresses as mailto links, three people sharing a surname', () => {
    expectPeople(
      `<div class="people">Anna Schmidt, CTO. Reach out: <a href="mailto:aschmidt@acme.test">aschmidt@acme.test</a><br>
       Lukas Schmidt, Product Manager. Reach out: <a href="mailto:lschmidt@acme.test">lschmidt@acme.test</a><br>
       Greta Schmidt, Data Scientist. Reach out: <a href="mailto:gschmidt@acme.test">gschmidt@acme.test</a><br>
       Noah Berg, CEO. Reach out: <a href="mailto:nberg@acme.test">nberg@acme.test</a></div>`,
      {
        'Anna Schmidt': { title: 'CTO', email: 'aschmidt@acme.test' },
        'Lukas Schmidt': { title: 'Product Manager', email: 'lschmidt@acme.test' },
        'Greta Schmidt': { title: 'Data Scientist', email: 'gschmidt@acme.test' },
        'Noah Berg': { title: 'CEO', email: 'nberg@acme.test' },
      },
    );
  });

  it('reads entries as sentences of one paragraph, addresses written out, and a colleague with no address', () => {
    expectPeople(
      `<p>Sofia Costa, CEO. Reach out: sofia at acme dot test. Mateo Costa, VP Engineering. Reach out: mateo at acme dot test.
       Clara Costa, Office Manager. Felix Novak, COO. Reach out: felix at acme dot test.</p>`,
      {
        'Sofia Costa': { title: 'CEO', email: 'sofia@acme.test' },
        'Mateo Costa': { title: 'VP Engineering', email: 'mateo@acme.test' },
        'Clara Costa': { title: 'Office Manager', email: null },
        'Felix Novak': { title: 'COO', email: 'felix@acme.test' },
      },
    );
  });

  it('reads an entry whose address follows its title on one line', () => {
    expectPeople(
      `<ul><li>Anna Schmidt — CTO — anna@acme.test</li><li>Lukas Schmidt | Head of Sales, EMEA | lukas@acme.test</li></ul>
       <p>Greta Schmidt, Data Scientist, greta at acme dot test</p>`,
      {
        'Anna Schmidt': { title: 'CTO', email: 'anna@acme.test' },
        'Lukas Schmidt': { title: 'Head of Sales, EMEA', email: 'lukas@acme.test' },
        'Greta Schmidt': { title: 'Data Scientist', email: 'greta@acme.test' },
      },
    );
  });

  it("keeps a surname that is another's given name apart, in lists and tables", () => {
    expectPeople(
      `<ul><li>Jonas Weber — CEO <span>jonas@acme.test</span></li><li>Maja Jonas — CTO <span>maja@acme.test</span></li>
       <li>Hugo Jonas — Head of Marketing</li></ul>
       <table><tr><th>Name</th><th>Role</th><th>Email</th></tr>
       <tr><td>Elif Hugo</td><td>Senior Software Engineer</td><td>elif@acme.test</td></tr>
       <tr><td>Priya Weber</td><td>CFO</td><td></td></tr></table>`,
      {
        'Jonas Weber': { title: 'CEO', email: 'jonas@acme.test' },
        'Maja Jonas': { title: 'CTO', email: 'maja@acme.test' },
        'Hugo Jonas': { title: 'Head of Marketing', email: null },
        'Elif Hugo': { title: 'Senior Software Engineer', email: 'elif@acme.test' },
        'Priya Weber': { title: 'CFO', email: null },
      },
    );
  });

  it('matches hyphenated and accented names, in cards and in addresses listed apart from the entries', () => {
    expectPeople(
      `<div class="member"><h3>Zoë Lefèvre</h3><p>Co-Founder &amp; CEO</p><a href="mailto:zoe.lefevre@acme.test">Email Zoë</a></div>
       <div class="member"><h3>Amélie Lefèvre</h3><p>Head of Sales</p></div>
       <div class="member"><h3>Jean-Luc Müller-Lang</h3><p>CTO</p></div>
       <div class="member"><h3>Ines Müller</h3><p>Product Manager</p></div>
       <div class="member"><h3>Inès Van Dijk</h3><p>COO</p></div>
       <p>Write to amelie.lefevre@acme.test, jeanluc.muellerlang@acme.test or ines.vandijk@acme.test; press: info@acme.test</p>`,
      {
        'Zoë Lefèvre': { title: 'Co-Founder & CEO', email: 'zoe.lefevre@acme.test' },
        'Amélie Lefèvre': { title: 'Head of Sales', email: 'amelie.lefevre@acme.test' },
        'Jean-Luc Müller-Lang': { title: 'CTO', email: 'jeanluc.muellerlang@acme.test' },
        'Ines Müller': { title: 'Product Manager', email: null },
        'Inès Van Dijk': { title: 'COO', email: 'ines.vandijk@acme.test' },
      },
    );
  });

  it('gives an address listed apart that fits two colleagues to neither, unless the addresses of the page show their pattern', () => {
    expectPeople(
      `<div class="member"><h3>Anna Schmidt</h3><p>CTO</p></div><div class="member"><h3>Arne Schmidt</h3><p>CEO</p></div>
       <div class="member"><h3>Jonas Weber</h3><p>CFO</p></div><div class="member"><h3>Maja Jonas</h3><p>COO</p></div>
       <p>Write to aschmidt@acme.test or jonas@acme.test.</p>`,
      {
        'Anna Schmidt': { title: 'CTO', email: null },
        'Arne Schmidt': { title: 'CEO', email: null },
        'Jonas Weber': { title: 'CFO', email: null },
        'Maja Jonas': { title: 'COO', email: null },
      },
    );
    // Here the page's own entries use given names: jonas@ is Jonas Weber's, not Maja Jonas's.
    expectPeople(
      `<div class="member"><h3>Omar Haddad</h3><p>CEO</p><a href="mailto:omar@acme.test">mail</a></div>
       <div class="member"><h3>Jonas Weber</h3><p>CFO</p></div><div class="member"><h3>Maja Jonas</h3><p>COO</p></div>
       <p>Finance: jonas@acme.test</p>`,
      {
        'Omar Haddad': { title: 'CEO', email: 'omar@acme.test' },
        'Jonas Weber': { title: 'CFO', email: 'jonas@acme.test' },
        'Maja Jonas': { title: 'COO', email: null },
      },
    );
  });

  it("gives the last of a flat page's entries no address that follows it unless it is named after them", () => {
    expectPeople(
      `<h3>Anna Schmidt</h3><p>CTO</p><p>anna.schmidt@acme.test</p>
       <h3>Omar Haddad</h3><p>CFO</p><p>ohaddad@acme.test</p>
       <h3>Lukas Schmidt</h3><p>CEO</p>
       <p>Press enquiries: presse.berlin@acme.test</p>`,
      {
        'Anna Schmidt': { title: 'CTO', email: 'anna.schmidt@acme.test' },
        'Omar Haddad': { title: 'CFO', email: 'ohaddad@acme.test' },
        'Lukas Schmidt': { title: 'CEO', email: null },
      },
    );
  });

  it("does not take a colleague's address shown in one's own entry", () => {
    expectPeople(`<p>Lukas Schmidt, CEO. Assistant: anna.schmidt@acme.test</p><p>Anna Schmidt, Office Manager.</p>`, {
      'Lukas Schmidt': { title: 'CEO', email: null },
      'Anna Schmidt': { title: 'Office Manager', email: 'anna.schmidt@acme.test' },
    });
  });
});
