/**
 * A seeded, fictional set of companies for the agent's tests and benchmark:
 * who works where, with which title and address, and how each site shows
 * them. The truth the researcher's results are measured against.
 */
import { familyOf, joinFamily, mailboxes } from './families.ts';

export type Shown = 'mailto' | 'jsonld' | 'text' | 'obfuscated' | 'entities' | 'spelled' | 'none';
export type TeamStyle = 'cards' | 'jsonld' | 'table' | 'list' | 'paragraphs' | 'prose' | 'plain';

export interface WorldPerson {
  name: string;
  title: string;
  /** Role keys the title stands for, independent of the product's title matching: `ceo`, `cto`, `founder`, `cfo`, … */
  roles: string[];
  email: string;
  shown: Shown;
}

export interface WorldCompany {
  name: string;
  /** The company's own domain: its addresses', and its site's in the one-host-per-company layout. */
  host: string;
  /** Where its site is served: its own host, or a shared host (a hosting platform) with `sitePrefix`. */
  siteHost: string;
  /** '' on its own host, else the path its pages live under (`/sites/blue-pay`). */
  sitePrefix: string;
  industry: string;
  city: string;
  product: string;
  style: TeamStyle;
  /** Which spelling of its style the team page uses (the holdout's spellings are its own). */
  variant: number;
  holdout: boolean;
  teamPath: string;
  aboutPath: string;
  /** robots.txt disallows /private/, where a page lists someone who does not work there. */
  privateArea: boolean;
  /** The home page's menu leaves the team page out: only the about page links it. */
  teamUnderAbout: boolean;
  /** The home page does not say the city: the about and contact pages do. */
  cityOnlyInAbout: boolean;
  genericEmail: string;
  people: WorldPerson[];
}

export const industries: Record<string, { words: string[]; products: string[] }> = {
  fintech: {
    words: ['Pay', 'Ledger', 'Capital', 'Coin', 'Bank', 'Finance'],
    products: ['payment infrastructure for small businesses', 'a banking API for marketplaces', 'expense cards for startups'],
  },
  healthtech: {
    words: ['Health', 'Care', 'Med', 'Clinic', 'Vital', 'Cura'],
    products: ['remote patient monitoring', 'scheduling software for clinics', 'a digital pharmacy'],
  },
  logistics: {
    words: ['Freight', 'Cargo', 'Route', 'Fleet', 'Haul', 'Ship'],
    products: ['route planning for delivery fleets', 'a freight marketplace', 'warehouse robotics software'],
  },
  edtech: {
    words: ['Learn', 'Academy', 'Tutor', 'Class', 'Skill', 'Study'],
    products: ['online tutoring for schools', 'a language learning app', 'course software for universities'],
  },
  cybersecurity: {
    words: ['Shield', 'Guard', 'Secure', 'Vault', 'Sentinel', 'Cipher'],
    products: ['endpoint protection', 'a password manager for teams', 'penetration testing as a service'],
  },
  'e-commerce': {
    words: ['Shop', 'Cart', 'Market', 'Store', 'Basket', 'Goods'],
    products: ['a storefront builder', 'checkout software for retailers', 'a marketplace for local makers'],
  },
};
export const cities = ['Berlin', 'Munich', 'London', 'Paris', 'Amsterdam', 'Stockholm', 'Barcelona'];

// Pairs with several companies (what goals ask for), then near misses that share one half of a goal.
const planned: Array<[string, string, number]> = [
  ['fintech', 'Berlin', 5],
  ['healthtech', 'London', 4],
  ['logistics', 'Munich', 4],
  ['edtech', 'Paris', 3],
  ['cybersecurity', 'Amsterdam', 3],
  ['fintech', 'Munich', 2],
  ['healthtech', 'Berlin', 2],
  ['logistics', 'Berlin', 2],
  ['fintech', 'London', 2],
  ['e-commerce', 'Stockholm', 2],
];

const prefixes = [
  'Blue',
  'Nord',
  'Kite',
  'Ember',
  'Polar',
  'Atlas',
  'Lumen',
  'Vega',
  'Orbit',
  'Cedar',
  'Quartz',
  'Harbor',
  'Summit',
  'Nimbus',
  'Pixel',
  'Falcon',
  'Granite',
  'Willow',
  'Aurora',
  'Beacon',
  'Coral',
  'Delta',
  'Fjord',
  'Helix',
];
const firstNames = [
  'Anna',
  'Lukas',
  'Zoë',
  'Mateo',
  'Sofia',
  'Jonas',
  'Amélie',
  'Noah',
  'Ingrid',
  'Omar',
  'Chloé',
  'Felix',
  'Priya',
  'Liam',
  'Elif',
  'Hugo',
  'Maja',
  'Rafael',
  'Yuki',
  'Clara',
  'Björn',
  'Leila',
  'Tomás',
  'Nora',
  'Arjun',
  'Greta',
  'Malik',
  'Ines',
  'Oskar',
  'Lucía',
];
const lastNames = [
  'Schmidt',
  'Müller',
  'Dubois',
  'García',
  'Jansen',
  'Lindqvist',
  'Rossi',
  'Novak',
  'Okafor',
  'Kowalski',
  'Bernard',
  'Fischer',
  'Andersson',
  'Moreau',
  'Silva',
  'Weber',
  'Larsen',
  'Costa',
  'Nakamura',
  'Petrov',
  'Keller',
  'Haddad',
  'Brennan',
  'Van Dijk',
  'Lefèvre',
  'Ortega',
  'Berg',
  'Schulz',
  'Murphy',
  'Ahmed',
];
const ceoTitles: Array<[string, string[]]> = [
  ['CEO', ['ceo']],
  ['Co-Founder & CEO', ['founder', 'ceo']],
  ['Chief Executive Officer', ['ceo']],
];
const ctoTitles: Array<[string, string[]]> = [
  ['CTO', ['cto']],
  ['Chief Technology Officer', ['cto']],
  ['Co-Founder & CTO', ['founder', 'cto']],
];
const otherTitles: Array<[string, string[]]> = [
  ['CFO', ['cfo']],
  ['COO', ['coo']],
  ['VP Engineering', ['vp engineering']],
  ['Head of Sales', ['head of sales']],
  ['Head of Marketing', ['head of marketing']],
  ['Product Manager', ['product manager']],
  ['Senior Software Engineer', ['engineer']],
  ['Office Manager', ['office manager']],
  ['Data Scientist', ['data scientist']],
];
const styles: TeamStyle[] = ['cards', 'jsonld', 'table', 'list', 'paragraphs', 'cards', 'table', 'prose', 'plain'];
const shownByStyle: Record<TeamStyle, Shown[]> = {
  cards: ['mailto', 'mailto', 'mailto', 'none'],
  jsonld: ['jsonld', 'jsonld', 'jsonld', 'none'],
  table: ['text', 'obfuscated', 'text', 'none'],
  list: ['entities', 'obfuscated', 'entities', 'none'],
  paragraphs: ['text', 'obfuscated', 'mailto', 'none'],
  prose: ['text', 'none'],
  plain: ['text', 'mailto', 'spelled', 'none'],
};

/** mulberry32: a small seeded generator, so every run sees the same world. */
export function seededRandom(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
  };
}

/** `count` companies (at least the planned pairs), the same for the same seed; `holdout` spells them as the benchmark's holdout. */
export function generateCompanies(count = 48, seed = 7, holdout = false): WorldCompany[] {
  const random = seededRandom(seed);
  const pairs: Array<[string, string]> = planned.flatMap(([industry, city, n]) =>
    Array.from({ length: n }, () => [industry, city] as [string, string]),
  );
  while (pairs.length < count) pairs.push([random.pick(Object.keys(industries)), random.pick(cities)]);
  const usedNames = new Set<string>();
  const usedPeople = new Set<string>();
  return pairs.map(([industry, city], index) => {
    let name: string;
    do name = `${random.pick(prefixes)} ${random.pick(industries[industry]!.words)}`;
    while (usedNames.has(name));
    usedNames.add(name);
    const host = `${name.toLowerCase().replace(/[^a-z]+/g, '-')}.test`;
    const style = styles[index % styles.length]!;
    const pattern = random.pick(['first.last', 'first', 'flast'] as const);
    const titles = [
      random.pick(ceoTitles),
      ...(random.next() < 0.8 ? [random.pick(ctoTitles)] : []),
      ...pickSome(random, otherTitles, random.int(1, 5)),
    ];
    const drawn = titles.map(() => {
      let person: string;
      do person = `${random.pick(firstNames)} ${random.pick(lastNames)}`;
      while (usedPeople.has(person));
      usedPeople.add(person);
      return { name: person, shown: random.pick(shownByStyle[style]) };
    });
    const family = familyOf(index, holdout);
    const names = drawn.map((d) => d.name);
    const renamed = family ? joinFamily(names, family, index, usedPeople) : [];
    // Every other family has a colleague sharing the name who shows no address.
    if (renamed.length > 0 && index % 2 === 1) drawn[renamed.at(-1)!]!.shown = 'none';
    const emails = mailboxes(names, pattern, host);
    const people = titles.map(([title, roles], i) => ({ name: names[i]!, title, roles, email: emails[i]!, shown: drawn[i]!.shown }));
    return {
      name,
      host,
      siteHost: host,
      sitePrefix: '',
      industry,
      city,
      product: random.pick(industries[industry]!.products),
      style,
      variant: Math.floor(index / styles.length),
      holdout,
      teamPath: random.pick(['/team', '/people', '/our-team', '/about/team']),
      aboutPath: random.pick(['/about', '/about-us', '/company']),
      privateArea: random.next() < 0.4,
      teamUnderAbout: random.next() < 0.3,
      cityOnlyInAbout: random.next() < 0.25,
      genericEmail: `${random.pick(['info', 'hello', 'contact'])}@${host}`,
      people,
    };
  });
}

function pickSome<T>(random: ReturnType<typeof seededRandom>, list: readonly T[], n: number): T[] {
  const pool = [...list];
  return Array.from({ length: Math.min(n, pool.length) }, () => pool.splice(Math.floor(random.next() * pool.length), 1)[0]!);
}
