import type * as cheerio from 'cheerio';

export interface LinkedPerson {
  name: string;
  jobTitle: string | null;
  email: string | null;
  linkedin: string | null;
  telephone: string | null;
}

type Json = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);
const types = (node: Json) => [node['@type']].flat().map(String);

/** The Person and Organization entries of a page's JSON-LD (@graph, arrays and nested employees included). */
export function readLinkedData($: cheerio.CheerioAPI) {
  const people: LinkedPerson[] = [];
  const organization = { name: null as string | null, description: null as string | null, locality: null as string | null };
  const visit = (value: unknown, depth = 0): void => {
    if (depth > 6 || !value || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach((item) => visit(item, depth + 1));
    const node = value as Json;
    if (types(node).includes('Person') && text(node.name)) people.push(person(node));
    if (types(node).some((t) => /Organization|Corporation|LocalBusiness/.test(t)) && !organization.name) {
      organization.name = text(node.name);
      organization.description = text(node.description);
      organization.locality = text((node.address as Json | undefined)?.addressLocality);
    }
    for (const key of ['@graph', 'employee', 'employees', 'member', 'members', 'founder', 'founders', 'itemListElement', 'item'])
      visit(node[key], depth + 1);
  };
  $('script[type="application/ld+json"]').each((_, element) => {
    try {
      visit(JSON.parse($(element).text()));
    } catch {
      // A broken block is skipped; the page's markup is still read.
    }
  });
  return { people, organization };
}

function person(node: Json): LinkedPerson {
  const sameAs = [node.sameAs, node.url]
    .flat()
    .map(text)
    .filter((url): url is string => Boolean(url));
  const email =
    text(node.email)
      ?.replace(/^mailto:/i, '')
      .toLowerCase() ?? null;
  return {
    name: text(node.name)!,
    jobTitle: text(node.jobTitle),
    email,
    linkedin: sameAs.find((url) => /linkedin\.com\/in\//i.test(url)) ?? null,
    telephone: text(node.telephone),
  };
}
