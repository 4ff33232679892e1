import type { WorldCompany, WorldPerson } from './companies.ts';

export interface Page {
  title: string;
  html: string;
  /** Indexed by the search server (not robots.txt, not private pages). */
  searchable: boolean;
}

export const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
export const document = (title: string, body: string, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>${head}</head><body>${body}</body></html>`;

const obfuscated = (email: string, n: number) => {
  const [local, domain] = email.split('@');
  const parts = domain!.split('.');
  return n % 2 ? `${local} [at] ${parts.join(' [dot] ')}` : `${local} (at) ${parts.join(' (dot) ')}`;
};
const entities = (email: string) => email.replace('@', '&#64;').replace(/\./g, '&#46;');
const spelled = (email: string) => `${email.split('@')[0]} at ${email.split('@')[1]!.replace(/\./g, ' dot ')}`;

/** The address as the person's card shows it, or '' when it does not. */
function addressHtml(person: WorldPerson, n: number): string {
  switch (person.shown) {
    case 'mailto':
      return `<a href="mailto:${person.email}">Email ${escape(person.name.split(' ')[0]!)}</a>`;
    case 'text':
      return `<span>${person.email}</span>`;
    case 'obfuscated':
      return `<span>${obfuscated(person.email, n)}</span>`;
    case 'entities':
      return `<span>${entities(person.email)}</span>`;
    case 'spelled':
      return `<span>${spelled(person.email)}</span>`;
    default:
      return '';
  }
}

/** The address as a plain entry writes it: the address itself (a link or not), written out, or nothing. */
function plainAddress(person: WorldPerson): string {
  if (person.shown === 'mailto') return `<a href="mailto:${person.email}">${person.email}</a>`;
  return person.shown === 'spelled' ? spelled(person.email) : person.shown === 'none' ? '' : person.email;
}

/**
 * Entries as small teams write them, one line a person ("Name, Title. Reach
 * out: address"): in paragraphs or lines of one block for the tests; as
 * sentences of one paragraph, list items with the name in bold, or a
 * definition list in the holdout.
 */
function plainEntries(company: WorldCompany): string {
  const entry = (p: WorldPerson, lead: string) => {
    const address = plainAddress(p);
    return `${escape(p.name)}, ${escape(p.title)}.${address ? ` ${lead} ${address}` : ''}`;
  };
  const forms = company.holdout
    ? [
        () => `<p>${company.people.map((p) => `${entry(p, 'Write to')}${p.shown === 'none' ? '' : '.'}`).join(' ')}</p>`,
        () =>
          `<ul>${company.people.map((p) => `<li><b>${escape(p.name)}</b> – ${entry(p, 'Contact:').slice(escape(p.name).length + 2)}</li>`).join('')}</ul>`,
        () =>
          `<dl>${company.people.map((p) => `<dt>${escape(p.name)}</dt><dd>${entry(p, 'Mail:').slice(escape(p.name).length + 2)}</dd>`).join('')}</dl>`,
      ]
    : [
        () => company.people.map((p) => `<p>${entry(p, 'Reach out:')}</p>`).join('\n'),
        () => `<p class="team">${company.people.map((p) => entry(p, 'Reach out:')).join('<br>\n')}</p>`,
      ];
  return forms[company.variant % forms.length]!();
}

function teamMarkup(company: WorldCompany): { body: string; head: string } {
  const people = company.people;
  switch (company.style) {
    case 'cards':
      return {
        head: '',
        body: people
          .map((p, i) => `<div class="member"><h3>${escape(p.name)}</h3><p class="role">${escape(p.title)}</p>${addressHtml(p, i)}</div>`)
          .join('\n'),
      };
    case 'jsonld': {
      const employee = people.map((p) => ({
        '@type': 'Person',
        name: p.name,
        jobTitle: p.title,
        ...(p.shown !== 'none' && { email: `mailto:${p.email}` }),
      }));
      const data = {
        '@context': 'https://schema.org',
        '@type': 'Organization',
        name: company.name,
        address: { '@type': 'PostalAddress', addressLocality: company.city },
        employee,
      };
      return {
        head: `<script type="application/ld+json">${JSON.stringify(data)}</script>`,
        body: `<div class="grid">${people.map((p) => `<figure class="portrait"><img alt=""><figcaption>${escape(p.name)}</figcaption></figure>`).join('')}</div>`,
      };
    }
    case 'table':
      return {
        head: '',
        body: `<table><tr><th>Name</th><th>Role</th><th>Email</th></tr>${people.map((p, i) => `<tr><td>${escape(p.name)}</td><td>${escape(p.title)}</td><td>${addressHtml(p, i)}</td></tr>`).join('')}</table>`,
      };
    case 'list':
      return {
        head: '',
        body: `<ul class="people">${people.map((p, i) => `<li>${escape(p.name)} — ${escape(p.title)} ${addressHtml(p, i)}</li>`).join('')}</ul>`,
      };
    case 'prose':
      // Sentences, as small companies write them: titles inside the text, not beside the names.
      return {
        head: '',
        body: people
          .map((p, i) => `<p>As our ${escape(p.title)}, ${escape(p.name)} looks after a part of the company. ${addressHtml(p, i)}</p>`)
          .join('\n'),
      };
    case 'plain':
      return { head: '', body: plainEntries(company) };
    case 'paragraphs':
      return {
        head: '',
        body: people
          .map((p, i) => `<section><h4>${escape(p.name)}</h4><p>${escape(p.title)}</p><p>${addressHtml(p, i)}</p></section>`)
          .join('\n'),
      };
  }
}

/** Every path of a company's site (under its `sitePrefix` on a shared host) and what it serves. */
export function companyPages(company: WorldCompany, others: WorldCompany[]): Map<string, Page> {
  const { name, city, industry, product } = company;
  const at = (path: string) => `${company.sitePrefix}${path}`;
  const teamLink = `<a href="${at(company.teamPath)}">Our team</a>`;
  const nav = `<nav><a href="${at('/')}">Home</a> <a href="${at(company.aboutPath)}">About us</a> ${company.teamUnderAbout ? '' : teamLink} <a href="${at('/careers')}">Careers</a> <a href="${at('/blog/news')}">Blog</a> <a href="${at('/contact')}">Contact</a></nav>`;
  const homePlace = company.cityOnlyInAbout ? 'with customers across Europe' : `headquartered in ${escape(city)}`;
  const footer = `<footer><a href="https://www.linkedin.com/company/${company.host.replace('.test', '')}">LinkedIn</a> <a href="https://twitter.com/${company.host.replace('.test', '')}">Twitter</a> © 2026 ${escape(name)}</footer>`;
  const customer = others[(company.name.length * 7) % others.length]!;
  const quoted = customer.people[0]!;
  const pages = new Map<string, Page>();
  const page = (path: string, title: string, body: string, head = '', searchable = true) =>
    pages.set(at(path), { title, html: document(title, `${nav}${body}${footer}`, head), searchable });

  page(
    '/',
    `${name} | ${product}`,
    `<h1>${escape(name)}</h1><p>${escape(name)} builds ${escape(product)} — a ${escape(industry)} company ${homePlace}.</p>` +
      `<div class="testimonials"><blockquote>“They changed how we work.” — ${escape(quoted.name)}, ${escape(quoted.title)} at ${escape(customer.name)}</blockquote></div>`,
  );
  page(
    company.aboutPath,
    `About ${name}`,
    `<h1>About ${escape(name)}</h1><p>Founded in ${2012 + (name.length % 10)} in ${escape(city)}, ${escape(name)} is a ${escape(industry)} team building ${escape(product)}.</p>` +
      `<p>Meet the people behind it on our <a href="${at(company.teamPath)}">team page</a>.</p>`,
  );
  const team = teamMarkup(company);
  const privateLink = company.privateArea ? ` <a href="${at('/private/board')}">Board</a>` : '';
  page(company.teamPath, `Team | ${name}`, `<h1>Our team</h1>${team.body}<p>Advisors:${privateLink}</p>`, team.head);
  page(
    '/contact',
    `Contact | ${name}`,
    `<h1>Contact</h1><p>Write to <a href="mailto:${company.genericEmail}">${company.genericEmail}</a>.</p><address>Hauptstraße ${name.length}, ${escape(city)}</address>`,
  );
  page('/careers', `Careers | ${name}`, '<h1>Open roles</h1><ul><li>Head of Sales (m/f/d)</li><li>Senior Software Engineer</li></ul>');
  const featured = company.people.at(-1)!;
  page(
    '/blog/news',
    `News | ${name}`,
    `<h1>News</h1><p>Last week ${escape(featured.name)} spoke about ${escape(product)} at a meetup in ${escape(city)}.</p>`,
  );
  if (company.privateArea)
    page(
      '/private/board',
      `Board | ${name}`,
      '<h1>Board</h1><div class="member"><h3>Hidden Boardmember</h3><p>Chief Technology Officer</p><a href="mailto:hidden@board.test">mail</a></div>',
      '',
      false,
    );
  return pages;
}
