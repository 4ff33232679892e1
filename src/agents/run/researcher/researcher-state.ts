import { titleMatches } from '../../../../scrapers/job-titles.ts';
import type { FoundPerson } from '../../../../scrapers/contacts.ts';
import type { FoundLeadInput } from '../tool-specs.ts';
import type { ToolOutcome } from '../transcript.ts';
import { mentionsExclusion, mentionsIndustry, mentionsLocation, type ResearchCriteria } from './goal-criteria.ts';

export interface Site {
  host: string;
  origin: string;
  name: string | null;
  status: 'queued' | 'verifying' | 'matched' | 'rejected' | 'directory';
  /** Text of the home page kept while an about page is read to settle the match. */
  homeText?: string;
  peoplePages: string[];
}

/** The built-in researcher's state, recorded with each step (plain JSON: host names hold dots, so no keys from data). */
export interface ResearcherState {
  criteria: ResearchCriteria;
  queries: string[];
  nextQuery: number;
  sites: Site[];
  pendingHomes: string[];
  pendingVerify: Array<{ host: string; url: string }>;
  pendingPeople: Array<{ host: string; url: string }>;
  toSave: FoundLeadInput[];
  /** Pages queued for people, once each. */
  queued: string[];
  /** People taken as leads, `<host>|<name>`, once each. */
  people: string[];
  found: number;
  saved: number;
  duplicates: number;
}

// Sites that are never a company's own: links to them are not candidates.
const notCompanies = /(^|\.)(linkedin|twitter|x|facebook|instagram|youtube|github|medium|google|bing|duckduckgo|wikipedia|tiktok|xing|glassdoor|crunchbase)\.[a-z]+$/i;
const peoplePath = /team|people|about|leadership|management|founders|staff|who-we-are|company|contact/i;
const teamFirst = (url: string) => (/team|people|leadership|management|staff|founders/i.test(url) ? 0 : /about|company|who-we-are/i.test(url) ? 1 : 2);

const site = (state: ResearcherState, host: string) => state.sites.find((s) => s.host === host);

function addSite(state: ResearcherState, url: string): Site | null {
  const parsed = new URL(url);
  if (notCompanies.test(parsed.hostname)) return null;
  const known = site(state, parsed.hostname);
  if (known) return known;
  const added: Site = { host: parsed.hostname, origin: parsed.origin, name: null, status: 'queued', peoplePages: [] };
  state.sites.push(added);
  state.pendingHomes.push(parsed.hostname);
  return added;
}

/** Reads the results of the last step into the state. Call ids say what each call was for (`home:`, `verify:`, `people:`, `search:`, `save:`). */
export function digest(state: ResearcherState, results: ToolOutcome[]): void {
  for (const outcome of results) {
    const purpose = outcome.tool_call_id.split(':')[0];
    const data = outcome.data as Record<string, unknown>;
    if (purpose === 'search') for (const result of (data.results as Array<{ url: string }> | undefined) ?? []) addSite(state, result.url);
    else if (purpose === 'save') {
      state.saved += Number(data.saved ?? 0);
      state.duplicates += Number(data.duplicates ?? 0);
    } else if (purpose === 'home' || purpose === 'verify') readSitePage(state, purpose, outcome.tool_call_id.slice(purpose.length + 1), data);
    else if (purpose === 'people') readPeople(state, outcome.tool_call_id.slice(7), data);
  }
}

function readSitePage(state: ResearcherState, purpose: 'home' | 'verify', host: string, data: Record<string, unknown>) {
  const known = site(state, host);
  if (!known) return;
  if (typeof data.error === 'string') return void (known.status = 'rejected');
  const text = `${String(data.title ?? '')} ${String(data.text ?? '')}`;
  const links = ((data.links as Array<{ url: string; text: string }>) ?? []).filter((link) => /^https?:/.test(link.url));
  const external = new Set(links.map((link) => new URL(link.url).hostname).filter((h) => h !== host && !notCompanies.test(h)));
  if (purpose === 'home' && external.size >= 3) {
    known.status = 'directory';
    for (const link of links) if (new URL(link.url).hostname !== host) addSite(state, new URL(link.url).origin);
    return;
  }
  if (purpose === 'home') known.name = String(data.title ?? '').split(/\s+[|–—-]\s+/)[0]!.trim() || null;
  const own = links.filter((link) => new URL(link.url).hostname === host && (peoplePath.test(new URL(link.url).pathname) || peoplePath.test(link.text)));
  known.peoplePages = [...new Set([...known.peoplePages, ...own.map((link) => link.url)])];
  const seen = `${known.homeText ?? ''} ${text}`;
  const { industries, locations, exclusions } = state.criteria;
  if (mentionsExclusion(seen, exclusions)) return void (known.status = 'rejected');
  const industry = mentionsIndustry(seen, industries);
  const location = mentionsLocation(seen, locations);
  if (industry && location) {
    known.status = 'matched';
    delete known.homeText;
    const teamPages = known.peoplePages.filter((url) => teamFirst(url) === 0);
    const about = known.peoplePages.find((url) => teamFirst(url) === 1 && url !== String(data.url));
    // No team link on the home page: small sites hang it off their about page.
    if (purpose === 'home' && teamPages.length === 0 && about) return void state.pendingVerify.push({ host, url: about });
    const pages = [...teamPages, ...known.peoplePages.filter((url) => teamFirst(url) > 0 && url !== String(data.url))].slice(0, 3);
    // An about page read to settle the match may name people too (it is read already: no cost).
    if (purpose === 'verify') pages.push(String(data.url));
    for (const url of pages.length ? pages : [String(data.url)]) queuePeople(state, host, url);
    return;
  }
  const about = known.peoplePages.find((url) => /about|company|who-we-are/i.test(url));
  if (purpose === 'home' && (industry || location) && about) {
    known.status = 'verifying';
    known.homeText = text.slice(0, 4_000);
    state.pendingVerify.push({ host, url: about });
  } else known.status = 'rejected';
}

function queuePeople(state: ResearcherState, host: string, url: string) {
  if (state.queued.includes(url)) return;
  state.queued.push(url);
  state.pendingPeople.push({ host, url });
}

/** People on a matched site's page who fit the criteria become leads to save. */
function readPeople(state: ResearcherState, host: string, data: Record<string, unknown>) {
  const known = site(state, host);
  if (!known || typeof data.error === 'string') return;
  const { titles, exclusions, requireEmail, locations } = state.criteria;
  for (const person of (data.people as FoundPerson[] | undefined) ?? []) {
    if (titles.length > 0 && !(person.title && titleMatches(person.title, titles))) continue;
    if (person.title && mentionsExclusion(person.title, exclusions)) continue;
    if (requireEmail && !person.email) continue;
    const key = `${host}|${person.name.toLowerCase()}`;
    if (state.people.includes(key)) continue;
    state.people.push(key);
    state.found += 1;
    state.toSave.push({
      full_name: person.name,
      ...(person.title && { title: person.title }),
      ...(person.email && { email: person.email }),
      ...(person.linkedin_url && { linkedin_url: person.linkedin_url }),
      ...(person.phone && { phone: person.phone }),
      ...(known.name && { company: known.name }),
      domain: host,
      ...(locations.length === 1 && { location: locations[0] }),
      source_url: String(data.url),
    });
  }
}
