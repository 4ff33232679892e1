/**
 * Job titles as people write them ("Co-Founder & CTO", "VP of Engineering",
 * "Heads of Sales") reduced to comparable roles: abbreviations spelled out,
 * plurals and filler words dropped, one role per part of a combined title.
 */
const abbreviations: Record<string, string> = {
  ceo: 'chief executive officer',
  cto: 'chief technology officer',
  cfo: 'chief financial officer',
  coo: 'chief operating officer',
  cmo: 'chief marketing officer',
  cpo: 'chief product officer',
  cro: 'chief revenue officer',
  cio: 'chief information officer',
  ciso: 'chief information security officer',
  chro: 'chief human resources officer',
  cdo: 'chief data officer',
  vp: 'vice president',
  svp: 'senior vice president',
  evp: 'executive vice president',
  md: 'managing director',
  gm: 'general manager',
  hr: 'human resources',
  cofounder: 'founder',
  'co-founder': 'founder',
};
const synonyms: Record<string, string> = {
  technical: 'technology',
  tech: 'technology',
  finance: 'financial',
  operations: 'operating',
  engineers: 'engineer',
};
const filler = new Set(['of', 'the', 'for', 'a', 'an', 'our', 'at', 'in', 'to']);
// Plural words whose singular is another word ("sales" is not a plural of anything here).
const keepAsIs = new Set([
  'sales',
  'operations',
  'services',
  'analytics',
  'logistics',
  'business',
  'relations',
  'systems',
  'resources',
  'series',
  'ops',
  'press',
  'success',
]);

const roleWords =
  /\b(chief|officer|ceo|cto|cfo|coo|cmo|cpo|cro|cio|ciso|chro|cdo|founder|co-?founder|owner|partner|president|vp|svp|evp|director|head|manager|lead|engineer|developer|designer|architect|scientist|analyst|consultant|specialist|executive|associate|coordinator|administrator|accountant|counsel|recruiter|advis[eo]r|assistant|intern|representative|strategist|editor|marketer|researcher|principal|chair(?:man|woman|person)?|board|md|gm|account|product owner|scrum master|secretary|treasurer|controller|officer)s?\b/i;
const notTitles = /^(our|meet|the|about|contact|join|see|view|read|learn|get|careers?|open roles?|jobs?)\b/i;

const singular = (word: string) => {
  if (keepAsIs.has(word) || word.length <= 3 || /(ss|us|is)$/.test(word)) return word;
  if (/^[a-z]{2,5}s$/.test(word) && abbreviations[word.slice(0, -1)]) return word.slice(0, -1); // ctos, vps
  return word.endsWith('s') ? word.slice(0, -1) : word;
};

/** Does this short text read as a job title? */
export function isJobTitle(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed || trimmed.length > 80 || trimmed.split(/\s+/).length > 9) return false;
  if (/[.!?]\s|[.!?]$/.test(trimmed) && !/\b[A-Z]{2,5}\.$/.test(trimmed)) return false;
  if (notTitles.test(trimmed) || /@|https?:|\d{3,}/.test(trimmed)) return false;
  return roleWords.test(trimmed);
}

/** The roles a title names, each as its words in order: "Co-Founder & CTO" → ["founder", "chief technology officer"]. */
export function canonicalTitles(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/\(.*?\)/g, ' ') // "(m/f/d)"
    .split(/\s*(?:&|\+|,|\/|\||;|\band\b)\s*/)
    .map((part) =>
      part
        .replace(/co[\s-]?founder/g, 'cofounder')
        .split(/[^a-z0-9-]+/)
        .filter(Boolean)
        .map((word) => singular(word))
        .flatMap((word) => (abbreviations[word] ?? word).split(' '))
        .map((word) => synonyms[word] ?? word)
        .filter((word) => !filler.has(word) && word !== 'senior' && word !== 'sr')
        .join(' '),
    )
    .filter(Boolean);
}

/** True when one of the wanted titles (free text: "CTO", "heads of sales", "founders") is a role of `title`. */
export function titleMatches(title: string, wanted: string[]): boolean {
  const roles = canonicalTitles(title).map((role) => new Set(role.split(' ')));
  return wanted.some((want) =>
    canonicalTitles(want).some((role) => {
      const words = role.split(' ');
      return roles.some((has) => words.every((word) => has.has(word)));
    }),
  );
}
