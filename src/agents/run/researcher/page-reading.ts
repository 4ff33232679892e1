import { mentionsIndustry, mentionsLocation, type ResearchCriteria } from './goal-criteria.ts';

/**
 * How the built-in researcher reads one page: which site scope it belongs
 * to (a host, or a host and path prefix when the site lives under a path
 * of a shared host), whether it is a list of companies, a pointer to one
 * (a directory profile, a job posting), or something that is no company.
 */
export interface Link {
  url: string;
  text: string;
}

// Sites that are never a company's own: links to them are not candidates.
export const notCompanies =
  /(^|\.)(linkedin|twitter|x|facebook|instagram|youtube|github|medium|google|bing|duckduckgo|wikipedia|tiktok|xing|glassdoor|crunchbase)\.[a-z]+$/i;
export const peoplePath = /team|people|about|leadership|management|founders|staff|who-we-are|company|contact/i;
export const teamFirst = (url: string) =>
  /team|people|leadership|management|staff|founders/i.test(url) ? 0 : /about|company|who-we-are/i.test(url) ? 1 : 2;
// Pages of events, job boards, the press: people named there work elsewhere.
const notCompanyTitle =
  /\b(summit|conference|meetup|festival|expo|events?|tickets|speakers|webinar|jobs?|hiring|vacanc\w*|magazine|news|press|newsletter|directory|profile|listing)\b|\(m\/f\/d\)/i;
const listTitleWords = /\b(top|best|\d{1,3}|list|directory|companies|startups|firms|to watch)\b/i;
// Menu words: a link so named is part of a site's chrome, not an entry naming a company.
const menuWords = new Set(
  'home about us our the team people careers career jobs blog news contact pricing privacy imprint impressum legal terms login log in sign up register products product solutions services customers partners docs documentation support help faq tickets newsletter tech business directory events more next previous back page read visit website homepage go to site'.split(
    ' ',
  ),
);

export const pathOf = (url: string) => new URL(url).pathname;

/** Is `url` in the scope `host` + `prefix` ('' for the whole host)? */
export const inScope = (url: string, host: string, prefix: string) => {
  const parsed = new URL(url);
  return parsed.hostname === host && (prefix === '' || parsed.pathname === prefix || parsed.pathname.startsWith(`${prefix}/`));
};

/**
 * The path prefix a page's site lives under: the longest directory of the
 * page's path under which most (and at least three) of its links to its
 * own host point; '' when its links spread over the host.
 */
export function scopePrefix(url: string, links: Link[]): string {
  const host = new URL(url).hostname;
  const internal = links.map((link) => new URL(link.url)).filter((link) => link.hostname === host);
  const segments = pathOf(url).split('/').filter(Boolean);
  for (let depth = segments.length; depth >= 1; depth--) {
    const prefix = `/${segments.slice(0, depth).join('/')}`;
    const under = internal.filter((link) => link.pathname === prefix || link.pathname.startsWith(`${prefix}/`)).length;
    if (under >= 3 && under >= internal.length * 0.6) return prefix;
  }
  return '';
}

const nameLike = (text: string) => {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\d&'-]+/u)
    .filter(Boolean);
  return words.length >= 1 && words.length <= 5 && /^[\p{Lu}\d]/u.test(text) && !words.every((word) => menuWords.has(word));
};

/**
 * The entries of a list or directory page: links named like a company,
 * leaving the page's own scope, repeated in one shape
 * (to other hosts, or to sibling paths such as `/companies/<name>`); the
 * caller asks for three, or two under a title that reads as a list.
 */
export function listEntries(url: string, links: Link[], prefix: string): Link[] {
  const host = new URL(url).hostname;
  const groups = new Map<string, Link[]>();
  for (const link of links) {
    const target = new URL(link.url);
    if (notCompanies.test(target.hostname) || !nameLike(link.text) || link.url === url) continue;
    let shape: string;
    if (target.hostname !== host) shape = 'external';
    else {
      const segments = target.pathname.split('/').filter(Boolean);
      // Top-level paths are a site's menu; paths within the page's own site scope are its pages.
      if (segments.length < 2 || (prefix !== '' && inScope(link.url, host, prefix))) continue;
      shape = `/${segments.slice(0, -1).join('/')}`;
    }
    groups.set(shape, [...(groups.get(shape) ?? []), link]);
  }
  const entries = [...groups.values()].filter((group) => new Set(group.map((link) => link.url)).size >= 2).flat();
  return [...new Map(entries.map((link) => [link.url, link])).values()];
}

/** Links out of the page's scope to a company's site ("Visit website"): a profile or a posting points at the company. */
export const pointerLinks = (url: string, links: Link[], prefix: string) =>
  links.filter(
    (link) =>
      /\b(website|homepage|home page|official site|company site)\b/i.test(link.text) &&
      !inScope(link.url, new URL(url).hostname, prefix) &&
      !notCompanies.test(new URL(link.url).hostname),
  );

export const notCompanyPage = (title: string) => notCompanyTitle.test(title);
export const listTitle = (title: string) => listTitleWords.test(title);

/**
 * How promising a search result is, from its title, snippet and URL: 6 for
 * a list naming the wanted industry and place, 5 for a page naming both,
 * 2–3 for one naming one of them, 1 or less (not read) for the rest and for
 * events and postings.
 */
export function resultScore(result: { url: string; title: string; content: string }, criteria: ResearchCriteria): number {
  const text = `${result.title} ${result.content}`;
  const wanted = [
    criteria.industries.length ? mentionsIndustry(text, criteria.industries) : null,
    criteria.locations.length ? mentionsLocation(text, criteria.locations) : null,
  ].filter((v) => v !== null);
  const all = wanted.every(Boolean);
  let score = 1 + (all ? 4 : wanted.some(Boolean) ? 1 : 0);
  if (score > 1 && listTitle(result.title)) score += 1;
  if (notCompanyPage(result.title) && !listTitle(result.title)) score -= 6;
  return score;
}
