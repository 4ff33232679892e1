import type { WorldCompany } from './companies.ts';
import { document, escape, type Page } from './pages.ts';

/**
 * The web around the companies' sites, as a search surfaces it: where
 * their sites live (own hosts, or paths of shared hosting platforms), a
 * directory whose lists link to profiles or to the sites, list articles
 * deep in a media site, and pages that are not companies at all (an event
 * with speakers, job postings). `holdout` shapes are spelled differently
 * and serve the benchmark only: tests never see them.
 */
export type Layout = 'hosts' | 'paths';

type SiteUrl = (company: WorldCompany) => string;
const slug = (company: WorldCompany) => company.host.replace(/\.test$/, '');
const groupsOf = (companies: WorldCompany[]) => {
  const groups = new Map<string, WorldCompany[]>();
  for (const company of companies)
    groups.set(`${company.industry}|${company.city}`, [...(groups.get(`${company.industry}|${company.city}`) ?? []), company]);
  return [...groups]
    .filter(([, members]) => members.length >= 2)
    .map(([key, members]) => ({ industry: key.split('|')[0]!, city: key.split('|')[1]!, members }));
};

/** Puts each company's site on its own host, or under a path of a shared host (the platforms' path shapes differ). */
export function placeSites(companies: WorldCompany[], layout: Layout, holdout: boolean): void {
  const platforms: Array<[string, (s: string) => string]> = holdout
    ? [
        ['hostly.test', (s) => `/p/${s}`],
        ['homepages.test', (s) => `/~${s}`],
        ['webspace.test', (s) => `/members/${s}/site`],
      ]
    : [
        ['sitely.test', (s) => `/sites/${s}`],
        ['pagehost.test', (s) => `/${s}`],
      ];
  companies.forEach((company, index) => {
    if (layout === 'hosts') Object.assign(company, { siteHost: company.host, sitePrefix: '' });
    else {
      const [host, prefix] = platforms[index % platforms.length]!;
      Object.assign(company, { siteHost: host, sitePrefix: prefix(slug(company)) });
    }
  });
}

/** The platforms' own home pages: a showcase of some sites hosted there. */
export function platformPages(companies: WorldCompany[], siteUrl: SiteUrl): Map<string, Map<string, Page>> {
  const sites = new Map<string, Map<string, Page>>();
  for (const company of companies) {
    if (!company.sitePrefix || sites.has(company.siteHost)) continue;
    const hosted = companies.filter((c) => c.siteHost === company.siteHost).slice(0, 6);
    const title = `${company.siteHost.replace('.test', '')}: websites for small teams`;
    const body = `<h1>Build your website</h1><p>Showcase:</p><ul>${hosted.map((c) => `<li><a href="${siteUrl(c)}">${escape(c.name)}</a></li>`).join('')}</ul><a href="/pricing">Pricing</a>`;
    sites.set(company.siteHost, new Map([['/', { title, html: document(title, body), searchable: false }]]));
  }
  return sites;
}

/** A directory: a list per industry and city, linking either to its profiles (paths of the directory) or to the sites; a profile per company. */
export function directoryPages(companies: WorldCompany[], siteUrl: SiteUrl, holdout: boolean): Map<string, Page> {
  const pages = new Map<string, Page>();
  const profilePath = (c: WorldCompany) => (holdout ? `/listing/${slug(c)}.html` : `/companies/${slug(c)}`);
  const index: string[] = [];
  for (const [n, { industry, city, members }] of groupsOf(companies).entries()) {
    const path = holdout ? `/browse/${city}/${industry}`.toLowerCase() : `/${industry}-${city}`.toLowerCase();
    const title = holdout ? `${city} ${industry} firms – page 1` : `Top ${industry} companies in ${city}`;
    const internal = n % 2 === 1;
    const list = members
      .map((c) => `<li><a href="${internal ? profilePath(c) : siteUrl(c)}">${escape(c.name)}</a>: ${escape(c.product)}</li>`)
      .join('');
    pages.set(path, {
      title,
      html: document(title, `<nav><a href="/">Directory</a></nav><h1>${escape(title)}</h1><ul>${list}</ul>`),
      searchable: true,
    });
    index.push(`<li><a href="${path}">${escape(title)}</a></li>`);
  }
  for (const c of companies) {
    const title = `${c.name} – profile`;
    const visit = holdout ? 'Homepage ↗' : 'Visit website';
    const body = `<nav><a href="/">Directory</a></nav><h1>${escape(c.name)}</h1><p>${escape(c.name)} is a ${escape(c.industry)} company in ${escape(c.city)}: ${escape(c.product)}.</p><p><a href="${siteUrl(c)}">${visit}</a></p>`;
    pages.set(profilePath(c), { title, html: document(title, body), searchable: true });
  }
  pages.set('/', { title: 'Startup directory', html: document('Startup directory', `<ul>${index.join('')}</ul>`), searchable: false });
  return pages;
}

/** A media site: list articles deep in its archive, and a meetup report naming people of several companies. */
export function mediaPages(companies: WorldCompany[], siteUrl: SiteUrl, holdout: boolean): Map<string, Page> {
  const pages = new Map<string, Page>();
  const nav =
    '<nav><a href="/">Home</a> <a href="/tech">Tech</a> <a href="/business">Business</a> <a href="/newsletter">Newsletter</a></nav>';
  for (const [n, { industry, city, members }] of groupsOf(companies).entries()) {
    const path = holdout
      ? `/read/${industry}-scene-${city}-${n}`.toLowerCase()
      : `/2026/0${(n % 9) + 1}/the-${industry}-startups-to-watch-in-${city}`.toLowerCase();
    const title = holdout ? `Who is building ${industry} in ${city}?` : `${members.length} ${industry} startups in ${city} to watch`;
    const items = members.map((c) =>
      holdout
        ? `<p><b><a href="${siteUrl(c)}">${escape(c.name)}</a></b> does ${escape(c.product)}.</p>`
        : `<li><h3><a href="${siteUrl(c)}">${escape(c.name)}</a></h3><p>${escape(c.product)}</p></li>`,
    );
    const body = `${nav}<article><h1>${escape(title)}</h1><p>Our pick of ${escape(industry)} teams in ${escape(city)}.</p>${holdout ? items.join('') : `<ol>${items.join('')}</ol>`}</article>`;
    pages.set(path, { title: `${title} | TechPress`, html: document(`${title} | TechPress`, body), searchable: true });
    // A report naming people of these companies on the media site's own pages: none of them works for the media site.
    const quoted = members.flatMap((c) =>
      c.people.slice(0, 2).map((p) => `<div class="member"><h3>${escape(p.name)}</h3><p class="role">${escape(p.title)}</p></div>`),
    );
    const report = `${industry} meetup in ${city}: what we heard`;
    pages.set(`/2026/events/${industry}-${city}-meetup`.toLowerCase(), {
      title: report,
      html: document(
        report,
        `${nav}<article><h1>${escape(report)}</h1><p>The ${escape(industry)} scene of ${escape(city)} met last night. On stage:</p>${quoted.join('')}</article>`,
      ),
      searchable: true,
    });
  }
  pages.set('/', { title: 'TechPress', html: document('TechPress', `${nav}<h1>TechPress</h1>`), searchable: false });
  return pages;
}

/** Pages that are not companies: an event with speakers and a moderator, job postings that point to the company. */
export function nonCompanyPages(companies: WorldCompany[], siteUrl: SiteUrl): Map<string, Map<string, Page>> {
  const events = new Map<string, Page>();
  const jobs = new Map<string, Page>();
  for (const { industry, city, members } of groupsOf(companies)) {
    const title = `${city} ${industry} summit 2026 – speakers`;
    const speakers = members
      .map((c) => c.people[0]!)
      .map((p) => `<div class="member"><h3>${escape(p.name)}</h3><p class="role">${escape(p.title)}</p></div>`);
    const moderator = `<div class="member"><h3>Morgan Event</h3><p class="role">CTO</p><a href="mailto:morgan@events.test">Email Morgan</a></div>`;
    events.set(`/${city}/${industry}-summit`.toLowerCase(), {
      title,
      html: document(
        title,
        `<nav><a href="/">Events</a> <a href="/tickets">Tickets</a></nav><h1>${escape(title)}</h1><p>The ${escape(industry)} conference of ${escape(city)}.</p>${speakers.join('')}${moderator}`,
      ),
      searchable: true,
    });
    for (const c of members) {
      const job = `Head of Sales (m/f/d) at ${c.name}, ${c.city}`;
      jobs.set(`/jobs/${slug(c)}-head-of-sales`, {
        title: job,
        html: document(
          job,
          `<nav><a href="/">Jobs</a></nav><h1>${escape(job)}</h1><p>${escape(c.name)} (${escape(c.industry)}) is hiring in ${escape(c.city)}.</p><a href="${siteUrl(c)}">Company website</a>`,
        ),
        searchable: true,
      });
    }
  }
  events.set('/', { title: 'Eventful', html: document('Eventful', '<h1>Conferences across Europe</h1>'), searchable: false });
  jobs.set('/', { title: 'Jobboard', html: document('Jobboard', '<h1>Jobs</h1>'), searchable: false });
  return new Map([
    ['events.test', events],
    ['jobs.test', jobs],
  ]);
}
