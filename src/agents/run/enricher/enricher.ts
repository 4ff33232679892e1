import type { FoundPerson } from '../../../../scrapers/contacts.ts';
import { leadsToEnrich, type LeadToEnrich } from '../../../leads/index.ts';
import type { FilledValue } from '../fill-leads.ts';
import type { Plan, PlanContext, Planner } from '../planner.ts';
import { columnAnswer } from '../researcher/researcher.ts';
import {
  inScope,
  notCompanies,
  notCompanyPage,
  pathOf,
  peoplePath,
  scopePrefix,
  teamFirst,
  type Link,
} from '../researcher/page-reading.ts';
import type { ToolCall, ToolOutcome } from '../transcript.ts';

interface LeadWork {
  lead: LeadToEnrich;
  /** The company's site once known: its host and path prefix. */
  host?: string;
  prefix?: string;
  homeTried?: boolean;
  /** Its pages queued or being read: with none left and no entry found, it is done. */
  outstanding: number;
  /** Its person's entry was found (the values it gave are queued). */
  found?: boolean;
  /** Where the company says it is, and the page saying it. */
  place?: { value: string; source: string };
  /** Its person's entry gave an address (queued to fill). */
  emailShown?: boolean;
  /** The email finder was asked for it. */
  finderAsked?: boolean;
  done: boolean;
}

interface EnricherState {
  work: LeadWork[];
  /** Leads to find a site for by a search, by id. */
  searches: string[];
  sitePages: Array<{ lead: string; url: string }>;
  peoplePages: Array<{ lead: string; url: string }>;
  queued: string[];
  toFill: FilledValue[];
  filled: Record<string, number>;
  changed: string[];
}

const pagesPerStep = 4;
const normalName = (name: string) =>
  name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, ' ')
    .trim();
// The company's own name says nothing of the page ("Summit Coin" is no summit).
const withoutName = (title: string, company: string | null) =>
  company ? title.toLowerCase().split(company.toLowerCase()).join(' ') : title;
const titleParts = (title: string) => title.split(/\s+[|–—-]\s+/).map((part) => part.trim().toLowerCase());

/**
 * The planner of an enrichment run (with or without a model: matching a
 * stored person on their company's pages needs none). For each lead it
 * finds the company's site (the lead's `source_url`, or a search for the
 * company whose result is on the lead's domain or named as the company),
 * reads that site's team, about and contact pages, and fills what the lead
 * lacks from the entry naming that person, never from another company's
 * site: only pages within the site's scope are read for it.
 */
export function enricherPlanner(): Planner {
  return {
    usesModel: false,
    async next(context: PlanContext): Promise<Plan> {
      const state = await stateBefore(context);
      const calls: ToolCall[] = [];
      const call = (id: string, name: string, args: Record<string, unknown>) => calls.push({ id, name, arguments: JSON.stringify(args) });
      if (state.toFill.length > 0) call(`fill:${context.steps.length}`, 'fill_leads', { updates: state.toFill.splice(0, 200) });
      let pages = Math.min(pagesPerStep, context.budget.pagesLeft);
      for (; pages > 0 && state.peoplePages.length > 0; pages--) {
        const next = state.peoplePages.shift()!;
        call(`people:${next.lead}|${next.url}`, 'extract_contacts', { url: next.url });
      }
      for (; pages > 0 && state.sitePages.length > 0; pages--) {
        const next = state.sitePages.shift()!;
        call(`site:${next.lead}|${next.url}`, 'fetch_page', { url: next.url });
      }
      if (calls.length === 0 && context.budget.pagesLeft > 0) {
        for (const id of state.searches.splice(0, 4)) {
          const { lead } = state.work.find((w) => w.lead.id === id)!;
          call(`search:${id}`, 'web_search', { query: [lead.company, lead.domain].filter(Boolean).join(' ') || lead.full_name! });
        }
      }
      // Last, the leads whose company's pages showed no address: the email finder asks their mail server.
      if (calls.length === 0)
        for (const work of state.work.filter(wantsFinder)) {
          work.finderAsked = true;
          call(`find:${work.lead.id}`, 'find_email', { lead_id: work.lead.id, domain: mailDomainOf(work) });
        }
      if (calls.length === 0) call(`finish:${context.steps.length}`, 'finish', { summary: summaryOf(state) });
      return { message: { content: null, tool_calls: calls }, tokens: 0, plannerState: state };
    },
  };
}

async function stateBefore(context: PlanContext): Promise<EnricherState> {
  const lastAct = context.steps.findLast((step) => step.kind === 'act');
  if (!lastAct || lastAct.kind !== 'act' || !lastAct.plannerState) return initialState(context);
  const state = structuredClone(lastAct.plannerState) as EnricherState;
  for (const outcome of lastAct.results) digest(state, outcome, context);
  return state;
}

async function initialState(context: PlanContext): Promise<EnricherState> {
  const leads = await leadsToEnrich(context.run.workspaceId, context.run.leadIds ?? []);
  const auto = context.autoColumns.map((column) => column.key);
  const state: EnricherState = { work: [], searches: [], sitePages: [], peoplePages: [], queued: [], toFill: [], filled: {}, changed: [] };
  for (const lead of leads) {
    const lacking = lead.missing.length > 0 || auto.some((key) => !lead.custom[key]);
    const work: LeadWork = { lead, outstanding: 0, done: !lacking || !lead.full_name };
    state.work.push(work);
    if (work.done) continue;
    if (lead.source_url && /^https?:/.test(lead.source_url)) queue(state, 'sitePages', lead.id, lead.source_url);
    else if (lead.company || lead.domain) searchFor(state, work);
    else work.done = true;
  }
  return state;
}

/** The lead's mail domain: its stored domain, else its company's own site's host (not a shared host's path). */
const mailDomainOf = (work: LeadWork) => work.lead.domain ?? (work.host && !work.prefix ? work.host.replace(/^www\./, '') : null);

/** A lead done with its pages that still lacks an email, with a name and a domain to look with. */
const wantsFinder = (work: LeadWork) =>
  work.done &&
  !work.finderAsked &&
  !work.emailShown &&
  work.lead.missing.includes('email') &&
  !!work.lead.full_name &&
  !!mailDomainOf(work);

function searchFor(state: EnricherState, work: LeadWork) {
  state.searches.push(work.lead.id);
  work.outstanding += 1;
}

function queue(state: EnricherState, list: 'sitePages' | 'peoplePages', lead: string, url: string) {
  const key = `${list}|${lead}|${url}`;
  if (state.queued.includes(key)) return;
  state.queued.push(key);
  state[list].push({ lead, url });
  const work = state.work.find((w) => w.lead.id === lead);
  if (work) work.outstanding += 1;
}

function digest(state: EnricherState, outcome: ToolOutcome, context: PlanContext) {
  const [purpose, rest = ''] = [outcome.tool_call_id.split(':')[0]!, outcome.tool_call_id.slice(outcome.tool_call_id.indexOf(':') + 1)];
  const data = outcome.data as Record<string, unknown>;
  if (purpose === 'fill' || purpose === 'find') {
    for (const value of (data.filled as FilledValue[] | undefined) ?? []) {
      state.filled[value.field] = (state.filled[value.field] ?? 0) + 1;
      if (!state.changed.includes(value.lead_id)) state.changed.push(value.lead_id);
    }
    return;
  }
  const [leadId, url = ''] = purpose === 'search' ? [rest] : [rest.slice(0, rest.indexOf('|')), rest.slice(rest.indexOf('|') + 1)];
  const work = state.work.find((w) => w.lead.id === leadId);
  if (!work || work.done) return;
  work.outstanding -= 1;
  if (typeof data.error !== 'string') {
    if (purpose === 'search') readResults(state, work, (data.results as Array<{ url: string; title: string }>) ?? []);
    else if (purpose === 'site')
      readSite(state, work, String(data.url ?? url), String(data.title ?? ''), String(data.text ?? ''), (data.links as Link[]) ?? []);
    else if (purpose === 'people' && !work.found)
      readPeople(state, work, String(data.url ?? url), (data.people as FoundPerson[]) ?? [], context);
  }
  if (!work.done) settleLocation(state, work);
}

/** The company's site among the results: on the lead's domain, or a page titled with the company's name ("Team | Acme"; no event, list, profile or posting). */
function readResults(state: EnricherState, work: LeadWork, results: Array<{ url: string; title: string }>) {
  const { domain, company } = work.lead;
  const site = results.find((result) => {
    const host = new URL(result.url).hostname;
    if (notCompanies.test(host) || notCompanyPage(withoutName(result.title, company))) return false;
    return (
      (domain && (host === domain || host.endsWith(`.${domain}`))) || (company && titleParts(result.title).includes(company.toLowerCase()))
    );
  });
  if (site) queue(state, 'sitePages', work.lead.id, site.url);
  else work.done = true;
}

/** A page of the company's site: its scope, and its team, about and contact pages within it. */
function readSite(state: EnricherState, work: LeadWork, url: string, title: string, text: string, links: Link[]) {
  if (!work.host && notCompanyPage(withoutName(title, work.lead.company))) {
    // The lead came from an event, a listing or the press: its company's own site is looked for instead.
    if (work.lead.company || work.lead.domain) searchFor(state, work);
    else work.done = true;
    return;
  }
  const host = new URL(url).hostname;
  work.host ??= host;
  work.prefix ??= scopePrefix(url, links);
  const own = links.filter(
    (link) =>
      /^https?:/.test(link.url) &&
      inScope(link.url, host, work.prefix!) &&
      (peoplePath.test(pathOf(link.url).slice(work.prefix!.length)) || peoplePath.test(link.text)),
  );
  const pages = [...new Set([url, ...own.map((link) => link.url).sort((a, b) => teamFirst(pathOf(a)) - teamFirst(pathOf(b)))])].slice(0, 4);
  for (const page of pages) queue(state, 'peoplePages', work.lead.id, page);
  const home = `${new URL(url).origin}${work.prefix}/`;
  const place = statedPlace.exec(text)?.[1];
  if (place && !work.place) work.place = { value: place, source: url };
  // Where the company is, its home or about page says: read once when the lead lacks its location.
  const wantsPlace = work.lead.missing.includes('location') && !work.place;
  if ((own.some((link) => teamFirst(pathOf(link.url)) === 0) && !wantsPlace) || work.homeTried) return;
  // No team page linked here: small sites hang it off their about page, and the home links both.
  work.homeTried = true;
  const about = own.find((link) => teamFirst(pathOf(link.url)) === 1);
  if (about) queue(state, 'sitePages', work.lead.id, about.url);
  if (url !== home) queue(state, 'sitePages', work.lead.id, home);
}

/** The lead's own entry on a page of its company: the values it lacks, each with that page as its source. */
function readPeople(state: EnricherState, work: LeadWork, url: string, people: FoundPerson[], context: PlanContext) {
  if (!work.host || !inScope(url, work.host, work.prefix ?? '')) return;
  const person = people.find((p) => normalName(p.name) === normalName(work.lead.full_name!));
  if (!person) return;
  work.found = true;
  const { lead } = work;
  const emailDomain = person.email?.split('@')[1]?.toLowerCase();
  // An address on another domain than the lead's is someone else's mailbox (an agency, a shared inbox): not taken.
  const email =
    person.email && (!lead.domain || emailDomain === lead.domain.toLowerCase() || emailDomain?.endsWith(`.${lead.domain.toLowerCase()}`))
      ? person.email
      : null;
  const domain = emailDomain ?? (work.prefix ? null : work.host);
  const values: Record<string, string | null> = {
    title: person.title,
    email,
    phone: person.phone,
    linkedin_url: person.linkedin_url,
    domain,
  };
  const found: Record<string, string> = {};
  for (const field of lead.missing) if (values[field]) found[field] = values[field]!;
  const answered = {
    full_name: lead.full_name!,
    source_url: url,
    ...(lead.company && { company: lead.company }),
    domain: lead.domain ?? found.domain,
    title: found.title,
    linkedin_url: found.linkedin_url,
    phone: found.phone,
  };
  for (const column of context.autoColumns) {
    if (lead.custom[column.key]) continue;
    const answer = columnAnswer(column, answered);
    if (answer) found[column.key] = answer;
  }
  if (found.email) work.emailShown = true;
  for (const [field, value] of Object.entries(found)) state.toFill.push({ lead_id: lead.id, field, value, source_url: url });
}

// "headquartered in Berlin", "based in New York", "Founded in 2015 in Paris": where a company says it is.
const statedPlace =
  /\b(?:[Hh]eadquartered|[Bb]ased|[Ll]ocated|[Ff]ounded in \d{4}) in ((?:[\p{Lu}][\p{L}'.-]+)(?:[ -][\p{Lu}][\p{L}'.-]+)?)/u;

/** Once the person's entry is found, the lead's location is the company's stated place (when its site says one); with no page left, the lead is done. */
function settleLocation(state: EnricherState, work: LeadWork) {
  const wantsPlace = work.lead.missing.includes('location');
  if (work.found && wantsPlace && work.place) {
    state.toFill.push({ lead_id: work.lead.id, field: 'location', value: work.place.value, source_url: work.place.source });
    work.done = true;
  } else if ((work.found && !wantsPlace) || work.outstanding <= 0) work.done = true;
}

function summaryOf(state: EnricherState): string {
  const fields = Object.entries(state.filled).map(([field, n]) => `${field} ${n}`);
  return (
    `Enriched ${state.changed.length} of ${state.work.length} leads from their companies' own pages` +
    (fields.length ? ` (filled: ${fields.join(', ')}).` : '.') +
    ' Values already set were kept; leads.csv lists each value filled, by lead, with the page it came from.'
  );
}
