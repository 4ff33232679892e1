import { isGenericAddress } from './contacts-emails.ts';

/**
 * Which person of a page an address belongs to, by how its local part is
 * made of their whole name (anna.schmidt@, aschmidt@, anna@, schmidt@ …):
 * given name and surname both count, so colleagues sharing a surname, or
 * one's surname being another's given name, are told apart, and an address
 * that fits two of them equally goes to neither.
 */
export type NameFit = 'given.surname' | 'surname.given' | 'initial.surname' | 'given.initial' | 'given' | 'surname';
const strength: Record<NameFit, number> = {
  'given.surname': 3,
  'surname.given': 3,
  'initial.surname': 2,
  'given.initial': 2,
  given: 1,
  surname: 1,
};

interface Named {
  name: string;
  email: string | null;
}

// A name as addresses spell it: accents dropped (Lefèvre → lefevre), or umlauts written out (Müller → mueller).
const spellings = (text: string) => {
  const lower = text.toLowerCase().replace(/ß/g, 'ss');
  const plain = (t: string) => t.normalize('NFD').replace(/\p{M}/gu, '');
  return [...new Set([plain(lower), plain(lower.replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue'))])];
};
const letters = (text: string) => text.replace(/[^a-z]/g, '');
const unique = (list: string[]) => [...new Set(list.filter((item) => item.length > 0))];

/** How `email`'s local part is formed from `name` (the strongest way), or null when it is not. */
export function addressFit(email: string, name: string): NameFit | null {
  const local = letters(spellings(email.split('@')[0]!)[0]!);
  if (local.length < 2) return null;
  let best: NameFit | null = null;
  for (const spelled of spellings(name)) {
    const [given, ...rest] = spelled.split(/\s+/).filter(Boolean);
    if (!given || rest.length === 0) return null;
    const last = rest.at(-1)!;
    // Jean-Luc: jeanluc, jean, jl / j; Van Dijk: vandijk, dijk; Müller-Lang: muellerlang, mueller, lang.
    const givens = unique([letters(given), letters(given.split('-')[0]!)]);
    const initials = unique(
      [
        given[0]!,
        given
          .split('-')
          .map((part) => part[0] ?? '')
          .join(''),
      ].map(letters),
    );
    const surnames = unique([letters(rest.join('')), letters(last), ...last.split('-').map(letters)]).filter((s) => s.length > 1);
    const forms: Array<[NameFit, string]> = [
      ...givens.flatMap((g) =>
        surnames.flatMap((s): Array<[NameFit, string]> => [
          ['given.surname', g + s],
          ['surname.given', s + g],
          ['given.initial', g + s[0]],
        ]),
      ),
      ...initials.flatMap((i) => surnames.map((s): [NameFit, string] => ['initial.surname', i + s])),
      ...givens.map((g): [NameFit, string] => ['given', g]),
      ...surnames.map((s): [NameFit, string] => ['surname', s]),
    ];
    for (const [fit, form] of forms) if (form === local && (!best || strength[fit] > strength[best])) best = fit;
  }
  return best;
}

/** The one person `email` fits best (the page's own pattern breaking a tie), or null when none or several do. */
function ownerOf<T extends Named>(email: string, people: T[], pattern: NameFit | null): T | null {
  const fits = people.flatMap((person) => {
    const fit = addressFit(email, person.name);
    return fit ? [{ person, fit }] : [];
  });
  const top = Math.max(0, ...fits.map(({ fit }) => strength[fit]));
  let best = fits.filter(({ fit }) => strength[fit] === top);
  if (best.length > 1 && pattern) best = best.filter(({ fit }) => fit === pattern);
  return best.length === 1 ? best[0]!.person : null;
}

/** The way every address its holder's name explains is formed on this page, when they all agree (anna@, omar@ → given). */
function patternOf(people: Named[]): NameFit | null {
  const fits = new Set(people.flatMap((person) => (person.email ? [addressFit(person.email, person.name)] : [])).filter(Boolean));
  return fits.size === 1 ? [...fits][0]! : null;
}

/**
 * Settles who holds which address, in place: an address that fits a
 * colleague's name and not its holder's goes back to the page; one held by
 * several stays with the one it fits best, or with none; then each address
 * nobody holds goes to the one person without an address it fits best.
 */
export function settleAddresses<T extends Named>(people: T[], pageEmails: string[]): void {
  for (const person of people) {
    if (!person.email || addressFit(person.email, person.name)) continue;
    if (people.some((other) => other !== person && addressFit(person.email!, other.name))) person.email = null;
  }
  for (const email of new Set(people.map((person) => person.email))) {
    const holders = people.filter((person) => email && person.email === email);
    if (holders.length < 2) continue;
    const owner = ownerOf(email!, holders, null);
    for (const holder of holders) if (holder !== owner) holder.email = null;
  }
  const pattern = patternOf(people);
  const held = new Set(people.map((person) => person.email));
  const offers = new Map<T, string[]>();
  for (const email of pageEmails) {
    if (held.has(email) || isGenericAddress(email)) continue;
    const owner = ownerOf(email, people, pattern);
    if (owner && !owner.email) offers.set(owner, [...(offers.get(owner) ?? []), email]);
  }
  for (const [person, emails] of offers) {
    const top = Math.max(...emails.map((email) => strength[addressFit(email, person.name)!]));
    const best = emails.filter((email) => strength[addressFit(email, person.name)!] === top);
    if (best.length === 1) person.email = best[0]!;
  }
}
