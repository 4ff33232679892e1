/**
 * Colleagues whose names meet, as on real team pages: two or three sharing
 * a surname, one's surname another's given name, hyphenated and accented
 * surnames, and a colleague sharing the surname who shows no address; and
 * their mailboxes, which never meet. The holdout gets family shapes the
 * tests never see (hyphenated and accented surnames shared).
 */
export type Family = 'pair' | 'trio' | 'given name' | 'hyphenated' | 'accented';

const testFamilies: Family[] = ['pair', 'given name', 'trio'];
const holdoutFamilies: Family[] = ['trio', 'hyphenated', 'given name', 'accented', 'pair'];
const accented = ['Lefèvre', 'Müller', 'Ångström', 'Núñez', 'Dvořák'];
const joined = ['Lang', 'Weiss', 'Roth'];

/** The family a company's team has, by its place in the world: three companies in four (of every team style) have one, in turn. */
export function familyOf(index: number, holdout: boolean): Family | null {
  if (index % 4 === 2) return null;
  const families = holdout ? holdoutFamilies : testFamilies;
  const before = index - Math.floor((index + 1) / 4);
  return families[before % families.length]!;
}

const split = (name: string) => {
  const [given, ...rest] = name.split(' ');
  return { given: given!, surname: rest.join(' ') };
};

/**
 * Renames some of `names` (in place) into `family`, each new name unused
 * in the world so far (the old ones stay taken, so later draws are those
 * of a world without families); a name that would repeat one stays.
 * Answers the indexes of the colleagues renamed after the first.
 */
export function joinFamily(names: string[], family: Family, index: number, used: Set<string>): number[] {
  const first = split(names[0]!);
  const rename = (i: number, name: string) => {
    if (i >= names.length || used.has(name)) return false;
    used.add(name);
    names[i] = name;
    return true;
  };
  const renamed: number[] = [];
  const to = (i: number, surname: string) => rename(i, `${split(names[i] ?? '').given} ${surname}`) && renamed.push(i);
  switch (family) {
    case 'pair':
      to(1, first.surname);
      break;
    case 'trio':
      to(1, first.surname);
      to(2, first.surname);
      break;
    case 'given name': {
      // "Jonas Weber" and "Maja Jonas" (not "Jonas Jonas").
      const other = names.findIndex((name, i) => i > 0 && split(name).given !== first.given);
      if (other > 0) to(other, first.given);
      break;
    }
    case 'hyphenated': {
      const double = `${first.surname.split(' ').at(-1)}-${joined[index % joined.length]}`;
      to(1, double);
      to(2, first.surname);
      break;
    }
    case 'accented': {
      const surname = accented[index % accented.length]!;
      if (rename(0, `${first.given} ${surname}`)) to(1, surname);
      break;
    }
  }
  return renamed;
}

const ascii = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/[^a-z]/g, '');

/** A team's addresses after the company's pattern, never one mailbox for two: the second gets first.last (Anna and Arne Schmidt at aschmidt@). */
export function mailboxes(names: string[], pattern: 'first.last' | 'first' | 'flast', host: string): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const [first, ...rest] = name.split(' ');
    const [given, last] = [ascii(first!), ascii(rest.join(''))];
    let local = pattern === 'first.last' ? `${given}.${last}` : pattern === 'first' ? given : `${given[0]}${last}`;
    if (taken.has(local)) local = `${given}.${last}`;
    taken.add(local);
    return `${local}@${host}`;
  });
}
