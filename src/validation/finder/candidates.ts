/** A person's name reduced to what mailbox names are made of: lower-case ASCII letters. */
export interface NameParts {
  first: string;
  last: string;
}

/** The local-part patterns companies use, most common first (Hunter's and Apollo's order, give or take). */
export const emailPatterns = [
  'first.last',
  'first',
  'flast',
  'firstlast',
  'f.last',
  'first_last',
  'last',
  'firstl',
  'first-last',
  'last.first',
] as const;
export type EmailPattern = (typeof emailPatterns)[number];

const localPart: Record<EmailPattern, (name: NameParts) => string> = {
  'first.last': ({ first, last }) => `${first}.${last}`,
  first: ({ first }) => first,
  flast: ({ first, last }) => `${first[0]}${last}`,
  firstlast: ({ first, last }) => `${first}${last}`,
  'f.last': ({ first, last }) => `${first[0]}.${last}`,
  first_last: ({ first, last }) => `${first}_${last}`,
  last: ({ last }) => last,
  firstl: ({ first, last }) => `${first}${last[0]}`,
  'first-last': ({ first, last }) => `${first}-${last}`,
  'last.first': ({ first, last }) => `${last}.${first}`,
};

/** Letters only, accents dropped (José → jose); apostrophes and hyphens inside a name are dropped too (O'Neil → oneil). */
const letters = (word: string) =>
  word
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');

/**
 * First and last name from a full name ("Dr. Ada M. Byron" → ada, byron: titles, initials and middle names
 * left out), or from the two parts given; null when either is missing.
 */
export function nameParts(input: { full_name?: string; first_name?: string; last_name?: string }): NameParts | null {
  if (input.first_name !== undefined || input.last_name !== undefined) {
    const first = letters(input.first_name ?? '');
    const last = letters((input.last_name ?? '').split(/\s+/).at(-1) ?? '');
    return first && last ? { first, last } : null;
  }
  const words = (input.full_name ?? '')
    .split(/[\s,]+/)
    .filter((word) => word && !/^(dr|mr|mrs|ms|prof)\.?$/i.test(word) && !/^\w\.?$/.test(word))
    .map(letters)
    .filter(Boolean);
  return words.length >= 2 ? { first: words[0]!, last: words.at(-1)! } : null;
}

/** The pattern an address at its domain follows for this name, or null when none of the known ones. */
export function patternOf(local: string, name: NameParts): EmailPattern | null {
  return emailPatterns.find((pattern) => localPart[pattern](name) === local.toLowerCase()) ?? null;
}

/** The addresses to try, likeliest first: the domain's known patterns (most used first), then the rest in their usual order; no address twice. */
export function candidates(name: NameParts, domain: string, known: EmailPattern[] = []): Array<{ email: string; pattern: EmailPattern }> {
  const seen = new Set<string>();
  return [...new Set([...known, ...emailPatterns])].flatMap((pattern) => {
    const email = `${localPart[pattern](name)}@${domain}`;
    if (seen.has(email)) return [];
    seen.add(email);
    return [{ email, pattern }];
  });
}

/** The patterns a domain's known addresses follow, most used first (ties in the usual order). */
export function knownPatterns(addresses: Array<{ email: string; full_name: string }>): EmailPattern[] {
  const uses = new Map<EmailPattern, number>();
  for (const { email, full_name } of addresses) {
    const name = nameParts({ full_name });
    const pattern = name && patternOf(email.split('@')[0] ?? '', name);
    if (pattern) uses.set(pattern, (uses.get(pattern) ?? 0) + 1);
  }
  return [...uses].sort(([a, m], [b, n]) => n - m || emailPatterns.indexOf(a) - emailPatterns.indexOf(b)).map(([pattern]) => pattern);
}
