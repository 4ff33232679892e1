import type { Criteria } from '../planner.ts';

/** What the built-in researcher looks for, read from the goal and the research profile. */
export interface ResearchCriteria {
  titles: string[];
  industries: string[];
  locations: string[];
  keywords: string[];
  exclusions: string[];
  requireEmail: boolean;
}

const companyNouns =
  'companies|company|startups|startup|firms|firm|businesses|agencies|agency|vendors|providers|brands|shops|studios|scale-?ups|organisations|organizations|teams';
// "<titles> (of|at|from|in) <industry> <companies> (in|based in) <Location>"
const industryPhrase = new RegExp(
  `\\b(?:of|at|from|in|for)\\s+((?:(?!(?:of|at|from|in|for)\\b)[\\p{L}\\d&-]+\\s+){0,3}?)(?:${companyNouns})\\b`,
  'iu',
);
const locationPhrase =
  /\b(?:in|based in|located in|near|around|across)\s+((?:[A-Z\p{Lu}][\p{L}'.-]+)(?:[ -](?:[A-Z\p{Lu}][\p{L}'.-]+))*)/gu;
const leadIn =
  /^\s*(?:please\s+)?(?:find|get|list|search(?:\s+for)?|look\s+for|show(?:\s+me)?|who\s+are\s+(?:the\s+)?|i\s+need|we\s+need|give\s+me)\s+(?:(?:all|the|some|\d+)\s+)*/i;
const stopWords = new Set([
  'the',
  'a',
  'an',
  'and',
  'or',
  'of',
  'at',
  'in',
  'for',
  'from',
  'with',
  'who',
  'that',
  'are',
  'is',
  'to',
  'me',
  'find',
  'list',
  'get',
  'all',
  'some',
  'their',
  'emails',
  'email',
  'contacts',
  'people',
  'leads',
]);

/** The criteria of a goal such as "CTOs of fintech companies in Berlin", merged with a profile's (the profile's lists come first). */
export function researchCriteria(goal: string, profile: Criteria | null): ResearchCriteria {
  const fromGoal = parseGoal(goal);
  const merge = (a: string[] | undefined, b: string[]) => [...new Set([...(a ?? []), ...b].map((s) => s.trim()).filter(Boolean))];
  return {
    titles: merge(profile?.titles?.map(normaliseTitle), fromGoal.titles),
    industries: merge(profile?.industries, fromGoal.industries),
    locations: merge(profile?.locations, fromGoal.locations),
    keywords: merge(profile?.keywords, profile?.industries?.length || fromGoal.industries.length ? [] : fromGoal.keywords),
    exclusions: merge(profile?.exclusions, []),
    requireEmail:
      (profile?.required_fields ?? []).some((field) => field.toLowerCase() === 'email') || /\bwith (?:an? )?e-?mails?\b/i.test(goal),
  };
}

function parseGoal(goal: string): { titles: string[]; industries: string[]; locations: string[]; keywords: string[] } {
  const text = goal.replace(/\s+/g, ' ').trim();
  const locations = [...text.matchAll(locationPhrase)].map((match) => match[1]!.replace(/[.,;]+$/, ''));
  const industryMatch = industryPhrase.exec(text);
  const industries = industryMatch?.[1]?.trim() ? [industryMatch[1].trim().toLowerCase()] : [];
  const titlePart = industryMatch ? text.slice(0, industryMatch.index).replace(leadIn, '').trim() : '';
  const titleParts = titlePart
    .split(/\s*(?:,|\band\b|\bor\b|\/|&)\s*/i)
    .map((title) => title.trim())
    .filter((title) => title.length > 1 && !/^(people|leads|contacts|employees|staff)$/i.test(title));
  return { titles: withSharedHead(titleParts).map(normaliseTitle), industries, locations, keywords: goalKeywords(text, locations) };
}

function goalKeywords(text: string, locations: string[]): string[] {
  return text
    .replace(leadIn, '')
    .split(/[^\p{L}\d-]+/u)
    .filter((word) => word.length > 2 && !stopWords.has(word.toLowerCase()) && !locations.some((l) => l.includes(word)));
}

// Abbreviated titles a goal may write in lower case or plural ("ctos", "VPs").
const titleAbbreviations = new Set([
  'ceo',
  'cto',
  'cfo',
  'coo',
  'cmo',
  'cpo',
  'cro',
  'cio',
  'ciso',
  'chro',
  'cdo',
  'vp',
  'svp',
  'evp',
  'md',
  'gm',
  'hr',
]);
// Plural words of titles whose singular is the word without its "s"; "Sales", "Operations", "Logistics" name a field and stay.
const pluralRoles =
  /^(heads|chiefs|founders|co-?founders|directors|managers|leads|engineers|developers|designers|officers|executives|presidents|partners|owners|architects|scientists|analysts|consultants|specialists|recruiters|advisors|advisers|marketers|researchers|principals|accountants|coordinators|administrators|associates|editors|strategists|representatives|assistants|interns)$/i;

/**
 * A title as one person holds it: "Heads of Sales" → "Head of Sales",
 * "ctos" → "CTO", "VPs of Engineering" → "VP of Engineering". Only the
 * number and the spelling change, never the role: a Head of Sales does not
 * become a VP Sales.
 */
export function normaliseTitle(title: string): string {
  return title
    .split(/(\s+|-)/)
    .map((word) => {
      const bare = word.toLowerCase();
      const single = bare.endsWith('s') && titleAbbreviations.has(bare.slice(0, -1)) ? bare.slice(0, -1) : bare;
      if (titleAbbreviations.has(single)) return single.toUpperCase();
      return pluralRoles.test(word) ? word.slice(0, -1) : word;
    })
    .join('');
}

const roleHead = /^((?:heads?|directors?|vps?|vice presidents?|chiefs?)\s+(?:of\s+)?)\S/i;

/** "Heads of Sales and Marketing" names two titles: "Heads of Sales", "Heads of Marketing". */
function withSharedHead(parts: string[]): string[] {
  let head = '';
  return parts.map((part) => {
    const own = roleHead.exec(part);
    if (own) return ((head = own[1]!), part);
    return head &&
      !/\b(ceo|cto|cfo|coo|founder|owner|officer|president|partner|manager|engineer|lead|chief|director|head|vp)s?\b/i.test(part)
      ? `${head}${part}`
      : part;
  });
}

/** Text compared loosely: lower case, without spaces and hyphens ("E-Commerce" and "ecommerce", "health tech" and "healthtech" agree). */
const compact = (text: string) => text.toLowerCase().replace(/[\s-]+/g, '');

export const mentionsIndustry = (text: string, industries: string[]) =>
  industries.length === 0 || industries.some((industry) => compact(text).includes(compact(industry)));

export const mentionsLocation = (text: string, locations: string[]) =>
  locations.length === 0 ||
  locations.some((location) => new RegExp(`(^|[^\\p{L}])${escapeRegExp(location)}($|[^\\p{L}])`, 'iu').test(text));

export const mentionsExclusion = (text: string, exclusions: string[]) =>
  exclusions.some((word) => new RegExp(`(^|[^\\p{L}])${escapeRegExp(word)}($|[^\\p{L}])`, 'iu').test(text));

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The searches for the criteria, most specific first. */
export function searchQueries(criteria: ResearchCriteria, goal: string): string[] {
  const { industries, locations, keywords, titles } = criteria;
  const places = locations.length ? locations : [''];
  const subjects = industries.length ? industries : keywords.length ? [keywords.slice(0, 4).join(' ')] : [goal.slice(0, 120)];
  const queries: string[] = [];
  for (const subject of subjects) {
    for (const place of places) {
      queries.push(`${subject} companies ${place}`.trim(), `${subject} startups ${place}`.trim());
      if (titles.length) queries.push(`${subject} ${place} team ${titles[0]}`.trim());
    }
  }
  return [...new Set(queries)].slice(0, 12);
}
