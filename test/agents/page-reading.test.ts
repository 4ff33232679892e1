import { describe, expect, it } from 'vitest';
import { listEntries, pointerLinks, scopePrefix } from '../../src/agents/run/researcher/page-reading.ts';

const links = (base: string, ...items: Array<[string, string]>) =>
  items.map(([href, text]) => ({ url: new URL(href, base).toString(), text }));

/** How one page is read: the site scope it belongs to, and whether it lists companies or points at one. */
describe('reading a page', () => {
  it('finds a site under a path of a shared host from where its pages link', () => {
    const page = 'https://sites.example/sites/acme/team';
    const nav = links(
      page,
      ['/sites/acme/', 'Home'],
      ['/sites/acme/about', 'About'],
      ['/sites/acme/contact', 'Contact'],
      ['/pricing', 'Pricing'],
    );
    expect(scopePrefix(page, nav)).toBe('/sites/acme');
    const own = 'https://acme.example/about/team';
    expect(scopePrefix(own, links(own, ['/', 'Home'], ['/about', 'About'], ['/careers', 'Careers'], ['/contact', 'Contact']))).toBe('');
  });

  it("recognises a list wherever it is: links to other hosts or to profile paths, not a site's menu", () => {
    const article = 'https://media.example/2026/04/top-startups';
    const external = links(
      article,
      ['/', 'Home'],
      ['/tech', 'Tech'],
      ['https://a.example/', 'Acme Pay'],
      ['https://b.example/', 'Bolt Ledger'],
      ['https://c.example/x/', 'Cura Med'],
    );
    expect(listEntries(article, external, '').map((l) => l.text)).toEqual(['Acme Pay', 'Bolt Ledger', 'Cura Med']);
    const directory = 'https://dir.example/fintech-berlin';
    const profiles = links(
      directory,
      ['/', 'Directory'],
      ['/companies/acme', 'Acme Pay'],
      ['/companies/bolt', 'Bolt Ledger'],
      ['/companies/cura', 'Cura Med'],
    );
    expect(listEntries(directory, profiles, '')).toHaveLength(3);
    const company = 'https://sites.example/sites/acme/';
    const menu = links(
      company,
      ['/sites/acme/about', 'About us'],
      ['/sites/acme/team', 'Our team'],
      ['/sites/acme/careers', 'Careers'],
      ['/sites/acme/contact', 'Contact'],
    );
    expect(listEntries(company, menu, '/sites/acme')).toEqual([]);
  });

  it("follows a profile's or posting's link to the company's own site", () => {
    const profile = 'https://dir.example/companies/acme';
    expect(
      pointerLinks(profile, links(profile, ['/', 'Directory'], ['https://sites.example/sites/acme/', 'Visit website']), '').map(
        (l) => l.url,
      ),
    ).toEqual(['https://sites.example/sites/acme/']);
  });
});
