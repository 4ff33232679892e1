import { titleMatches } from '../../../../scrapers/job-titles.ts';
import type { FoundPerson } from '../../../../scrapers/contacts.ts';
import type { FoundLeadInput } from '../tool-specs.ts';
import type { ToolOutcome } from '../transcript.ts';
import { mentionsExclusion, mentionsIndustry, mentionsLocation, type ResearchCriteria } from './goal-criteria.ts';
import {
  inScope,
  listEntries,
  listTitle,
  notCompanies,
  notCompanyPage,
  pathOf,
  peoplePath,
  pointerLinks,
  resultScore,
  scopePrefix,
  teamFirst,
  type Link,
} from './page-reading.ts';

/** A company's site: a host, or a host and the path prefix its pages live under on a shared host. */
export interface Scope {
  host: string;
  prefix: string;
  name: string | null;
  status: 'reading' | 'verifying' | 'matched' | 'rejected';
  /** What its pages said so far (flags, not text: the state is recorded with every step). */
  industry: boolean;
  location: boolean;
  homeRead: boolean;
  /** Its team, about and contact pages, found by links within the scope. */
  peoplePages: string[];
  /** The domain of its people's addresses, when its site is on a shared host. */
  mailDomain?: string;
}

/** The built-in researcher's state, recorded with each step (plain JSON: host names hold dots, so no keys from data). */
export interface ResearcherState {
  criteria: ResearchCriteria;
  queries: string[];
  nextQuery: number;
  scopes: Scope[];
  /** Pages to read: search results and list entries, the most promising first. */
  candidates: Array<{ url: string; score: number; title: string }>;
  /** Pages of known scopes to read (their home, an about page to settle a match). */
  scopePages: string[];
  pendingPeople: string[];
  /** Every page queued once for reading (`page|<url>`) and once for its people (`people|<url>`). */
  queued: string[];
  toSave: FoundLeadInput[];
  /** People taken as leads, `<scope>|<name>`, once each. */
  people: string[];
  pagesRead: number;
  lists: number;
  found: number;
  saved: number;
  duplicates: number;
}

const scopeKey = (scope: Scope) => `${scope.host}${scope.prefix}`;
export const homeOf = (scope: Scope, origin: string) => `${origin}${scope.prefix}/`;

/** The known scope a URL falls in (the longest prefix wins). */
export const scopeOf = (state: ResearcherState, url: string) =>
  state.scopes.filter((scope) => inScope(url, scope.host, scope.prefix)).sort((a, b) => b.prefix.length - a.prefix.length)[0];

const isQueued = (state: ResearcherState, kind: 'page' | 'people', url: string) => state.queued.includes(`${kind}|${url}`);

function queue(state: ResearcherState, list: 'scopePages' | 'pendingPeople', url: string) {
  const kind = list === 'scopePages' ? 'page' : 'people';
  if (isQueued(state, kind, url)) return;
  state.queued.push(`${kind}|${url}`);
  state[list].push(url);
}

function addCandidate(state: ResearcherState, url: string, score: number, title: string) {
  if (isQueued(state, 'page', url) || notCompanies.test(new URL(url).hostname)) return;
  state.queued.push(`page|${url}`);
  const at = state.candidates.findIndex((candidate) => candidate.score < score);
  state.candidates.splice(at < 0 ? state.candidates.length : at, 0, { url, score, title });
}

/** Reads the results of the last step into the state. Call ids say what each call was for (`page:<url>`, `people:<url>`, `search:`, `save:`). */
export function digest(state: ResearcherState, results: ToolOutcome[]): void {
  for (const outcome of results) {
    const purpose = outcome.tool_call_id.split(':')[0];
    const data = outcome.data as Record<string, unknown>;
    const url = outcome.tool_call_id.slice(purpose!.length + 1);
    if (purpose === 'search')
      for (const result of (data.results as Array<{ url: string; title: string; content: string }> | undefined) ?? [])
        addCandidate(state, result.url, resultScore(result, state.criteria), result.title);
    else if (purpose === 'save') {
      state.saved += Number(data.saved ?? 0);
      state.duplicates += Number(data.duplicates ?? 0);
    } else if (purpose === 'page' && typeof data.error !== 'string') readPage(state, url, data);
    else if (purpose === 'people' && typeof data.error !== 'string') readPeople(state, url, data);
  }
}

/** Whether a candidate is still worth a page: nothing is read twice, a settled company only for its people. */
export function worthReading(state: ResearcherState, candidate: { url: string; title: string }): boolean {
  const scope = scopeOf(state, candidate.url);
  if (!scope || scope.status === 'reading' || scope.status === 'verifying') return true;
  if (scope.status === 'matched' && teamFirst(pathOf(candidate.url)) < 2) queue(state, 'pendingPeople', candidate.url);
  return false;
}

function readPage(state: ResearcherState, requested: string, data: Record<string, unknown>) {
  state.pagesRead += 1;
  const url = String(data.url ?? requested);
  const title = String(data.title ?? '');
  const links = ((data.links as Link[]) ?? []).filter((link) => /^https?:/.test(link.url));
  const known = scopeOf(state, url);
  const prefix = known && known.prefix ? known.prefix : scopePrefix(url, links);
  const entries = known ? [] : listEntries(url, links, prefix);
  if (entries.length >= 3 || (entries.length === 2 && listTitle(title))) {
    state.lists += 1;
    // A list whose title names the wanted industry and place lists candidates; one naming only one of them, perhaps.
    const { industries, locations } = state.criteria;
    const onTopic =
      (!industries.length || mentionsIndustry(title, industries)) && (!locations.length || mentionsLocation(title, locations));
    const partly = mentionsIndustry(title, industries) || mentionsLocation(title, locations);
    for (const entry of entries) addCandidate(state, entry.url, onTopic ? 5 : partly ? 2 : 1, entry.text);
    return;
  }
  const host = new URL(url).hostname;
  const isHome = pathOf(url) === (prefix || '/') || pathOf(url) === `${prefix}/`;
  const pointers = known ? [] : pointerLinks(url, links, prefix);
  // A page of an event, a job board or the press names people who work elsewhere; a company's home is judged by what it says.
  if (pointers.length > 0 || (!known && !isHome && notCompanyPage(title))) {
    for (const link of pointers.slice(0, 2)) addCandidate(state, link.url, 5, link.text);
    return;
  }
  const scope = known ?? addScope(state, host, prefix);
  const home = homeOf(scope, new URL(url).origin);
  if (isHome) {
    scope.homeRead = true;
    scope.name = title.split(/\s+[|–—-]\s+/)[0]!.trim() || null;
  }
  const text = `${title} ${String(data.text ?? '')}`;
  if (mentionsExclusion(text, state.criteria.exclusions)) scope.status = 'rejected';
  scope.industry ||= mentionsIndustry(text, state.criteria.industries);
  scope.location ||= mentionsLocation(text, state.criteria.locations);
  const own = links.filter(
    (link) =>
      inScope(link.url, host, scope.prefix) && (peoplePath.test(pathOf(link.url).slice(scope.prefix.length)) || peoplePath.test(link.text)),
  );
  scope.peoplePages = [...new Set([...scope.peoplePages, ...own.map((link) => link.url.replace(/#.*$/, ''))])].filter(
    (page) => page !== home,
  );
  if (!isHome && teamFirst(pathOf(url).slice(scope.prefix.length)) < 2 && !scope.peoplePages.includes(url)) scope.peoplePages.push(url);
  settle(state, scope, new URL(url).origin, url);
}

function addScope(state: ResearcherState, host: string, prefix: string): Scope {
  const scope: Scope = { host, prefix, name: null, status: 'reading', industry: false, location: false, homeRead: false, peoplePages: [] };
  state.scopes.push(scope);
  return scope;
}

/** Decides a scope once its home is read: matched (its people pages queued), an about page read to settle it, or rejected. */
function settle(state: ResearcherState, scope: Scope, origin: string, justRead: string) {
  if (scope.status === 'rejected' || scope.status === 'matched') return;
  const home = homeOf(scope, origin);
  if (!scope.homeRead) return void queue(state, 'scopePages', home);
  const unread = scope.peoplePages.filter((page) => !isQueued(state, 'page', page) && page !== justRead);
  if (scope.industry && scope.location) {
    scope.status = 'matched';
    const team = scope.peoplePages.filter((page) => teamFirst(pathOf(page)) === 0);
    const about = unread.find((page) => teamFirst(pathOf(page)) === 1);
    // No team link seen yet: small sites hang it off their about page.
    if (team.length === 0 && about) return void ((scope.status = 'verifying'), queue(state, 'scopePages', about));
    const pages = [...team, ...scope.peoplePages.filter((page) => teamFirst(pathOf(page)) > 0)].slice(0, 3);
    for (const page of pages.length ? pages : [home]) queue(state, 'pendingPeople', page);
    return;
  }
  const about = unread.find((page) => /about|company|who-we-are|contact/i.test(pathOf(page)));
  if ((scope.industry || scope.location) && about && scope.status === 'reading') {
    scope.status = 'verifying';
    queue(state, 'scopePages', about);
  } else scope.status = 'rejected';
}

/** People on a matched scope's page who fit the criteria become leads to save; people of another company named there are not. */
function readPeople(state: ResearcherState, url: string, data: Record<string, unknown>) {
  const scope = scopeOf(state, url);
  if (!scope || scope.status !== 'matched') return;
  const { titles, exclusions, requireEmail, locations } = state.criteria;
  const people = (data.people as FoundPerson[] | undefined) ?? [];
  if (scope.prefix)
    scope.mailDomain ??= mostCommon(people.flatMap((person) => (person.email ? [person.email.split('@')[1]!.toLowerCase()] : [])));
  for (const person of people) {
    if (titles.length > 0 && !(person.title && titleMatches(person.title, titles))) continue;
    if (person.title && mentionsExclusion(person.title, exclusions)) continue;
    if (person.title && worksElsewhere(person.title, scope.name)) continue;
    if (requireEmail && !person.email) continue;
    const key = `${scopeKey(scope)}|${person.name.toLowerCase()}`;
    if (state.people.includes(key)) continue;
    state.people.push(key);
    state.found += 1;
    state.toSave.push({
      full_name: person.name,
      ...(person.title && { title: person.title }),
      ...(person.email && { email: person.email }),
      ...(person.linkedin_url && { linkedin_url: person.linkedin_url }),
      ...(person.phone && { phone: person.phone }),
      ...(scope.name && { company: scope.name }),
      domain: scope.prefix ? (person.email?.split('@')[1] ?? scope.mailDomain ?? scope.host) : scope.host,
      ...(locations.length === 1 && { location: locations[0] }),
      source_url: String(data.url ?? url),
    });
  }
}

/** "CTO at Other Co": a title naming another employer. */
const worksElsewhere = (title: string, name: string | null) => {
  const employer = /\s(?:at|@)\s+(.+)$/i.exec(title)?.[1];
  return Boolean(employer && (!name || !employer.toLowerCase().includes(name.toLowerCase())));
};

function mostCommon(values: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}
