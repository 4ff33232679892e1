import * as cheerio from 'cheerio';
import type { AnyNode, Element } from 'cheerio';
import { readLinkedData, type LinkedPerson } from './contacts-linked-data.ts';
import { emailsIn, emailsInText, isGenericAddress, markupAddresses } from './contacts-emails.ts';
import { addressFit, settleAddresses } from './contacts-names.ts';
import { isJobTitle } from './job-titles.ts';

export interface FoundPerson {
  name: string;
  title: string | null;
  email: string | null;
  linkedin_url: string | null;
  phone: string | null;
}

const personFromLinkedData = (p: LinkedPerson): FoundPerson => ({
  name: p.name,
  title: p.jobTitle,
  email: p.email,
  linkedin_url: p.linkedin,
  phone: p.telephone,
});

export interface PageContacts {
  /** Each person once, the most complete record kept. */
  people: FoundPerson[];
  /** Every distinct address on the page, lower-cased, generic ones (info@) included. */
  emails: string[];
  organization: { name: string | null; description: string | null; locality: string | null };
}

// Quotes of customers and reviewers: their people are not this organisation's.
const quoted = 'blockquote, q, figure, [class*="testimonial" i], [class*="review" i], [class*="quote" i], [class*="customer" i]';
const particles = new Set(['van', 'von', 'de', 'da', 'del', 'della', 'di', 'du', 'der', 'den', 'ten', 'ter', 'le', 'la', 'bin', 'al', 'y']);
const notNames =
  /\b(team|office|company|contact|about|careers?|blog|news|home|services|products?|solutions|pricing|partners|customers|privacy|terms|policy|street|road|avenue|inc|gmbh|ltd|llc|ag|plc|sas|read|more|learn|sign|get|started|our|meet|us|we|the|and|welcome|follow|email|phone|address|linkedin|twitter)\b/i;
const nameWord = /^(\p{Lu}[\p{Ll}'’]+(?:-\p{Lu}?[\p{Ll}'’]+)*|\p{Lu}\.|\p{Lu}'\p{Lu}[\p{Ll}]+)$/u;
const inlinePerson = /^(.{3,60}?)\s*(?:[—–|:]|\s-\s|,)\s*(.{2,80})$/u;
const capitalised = "\\p{Lu}[\\p{Ll}'’]+(?:-\\p{Lu}?[\\p{Ll}'’]+)*";
const nameInText = `(${capitalised}(?:\\s+(?:(?:van|von|de|da|del|di|du|der|den|le|la)\\s+)?${capitalised}){1,3})`;
// Sentences naming someone with their title: "our CTO, Anna Schmidt," / "Anna Schmidt, our CTO," / "Anna Schmidt (CTO)".
const prosePatterns = [
  new RegExp(`\\b(?:our|the|as)\\s+(?:our\\s+)?([\\p{L}&\\s-]{2,40}?),\\s+${nameInText}\\b`, 'gu'),
  new RegExp(`${nameInText},\\s+(?:our|the)\\s+([\\p{L}&\\s-]{2,40}?)(?=[,.;]|\\s(?:and|who|since)\\b)`, 'gu'),
  new RegExp(`${nameInText}\\s+\\(([^)]{2,40})\\)`, 'gu'),
];

/** People a sentence names with their title, as [name, title]. */
function peopleInProse(text: string): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const [index, pattern] of prosePatterns.entries()) {
    for (const match of text.matchAll(pattern)) {
      const [name, title] = index === 0 ? [match[2]!, match[1]!] : [match[1]!, match[2]!];
      if (looksLikeName(name) && isJobTitle(title) && !otherCompany(title)) found.push([name, title.trim()]);
    }
  }
  return found;
}

/** A plausible human name: 2 to 4 capitalised words (particles such as "van" allowed inside), nothing else. */
export function looksLikeName(text: string): boolean {
  const words = text.trim().split(/\s+/);
  if (words.length < 2 || words.length > 4 || notNames.test(text) || isJobTitle(text)) return false;
  return words.every((word, i) => nameWord.test(word) || (i > 0 && i < words.length - 1 && particles.has(word)));
}

/** A sentence of a text node, or a link carrying an address or a LinkedIn profile, in page order. */
interface Unit {
  text: string;
  node: AnyNode;
  emails: string[];
  linkedin?: string;
}

// Where a sentence ends ("Anna Schmidt, CTO. Reach out: …"), not after an initial ("J.") or a courtesy title ("Dr."),
// or an address ends and a name starts ("… anna@acme.com Lukas Schmidt, CEO").
const sentenceEnd =
  /(?:(?<=[.!?;])(?<!(?:^|[\s(])\p{Lu}\.)(?<!\b(?:Dr|Mr|Mrs|Ms|Prof|St|Sr|Jr)\.)\s+(?=[\p{L}\d])|(?<=@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,})\s+(?=\p{Lu}))/u;
const withoutStop = (text: string) => text.replace(/[.;]$/, '');
// A title in a text of its own after the name's ("<b>Anna Schmidt</b>, CTO."): the separator and the full stop dropped.
const titleIn = (text: string) => withoutStop(text).replace(/^(?:[,—–|:]|-\s)\s*/, '');

/** People, addresses and the organisation a page shows: JSON-LD first, then team cards, lists and tables. */
export function extractContacts(html: string, pageUrl: string): PageContacts {
  const $ = cheerio.load(html);
  const linked = readLinkedData($);
  const people = new Map<string, FoundPerson>();
  const add = (person: FoundPerson) => {
    const key = person.name.toLowerCase();
    const known = people.get(key);
    people.set(
      key,
      known
        ? {
            name: known.name,
            title: known.title ?? person.title,
            email: known.email ?? person.email,
            linkedin_url: known.linkedin_url ?? person.linkedin_url,
            phone: known.phone ?? person.phone,
          }
        : person,
    );
  };
  for (const person of linked.people) add(personFromLinkedData(person));

  $('script, style, noscript, template, svg').remove();
  $(quoted).remove();
  const pageEmails = new Set<string>([...linked.people.flatMap((p) => (p.email ? [p.email] : [])), ...emailsIn($, $.root())]);
  for (const person of peopleInMarkup($, pageUrl)) add(person);

  // Whose address is whose, by whole names: a colleague's goes back, one listed apart goes to the one person it fits.
  settleAddresses([...people.values()], [...pageEmails]);
  const title =
    $('meta[property="og:site_name"]').attr('content') ??
    $('title')
      .first()
      .text()
      .split(/\s+[|–—-]\s+/)[0];
  return {
    people: [...people.values()],
    emails: [...pageEmails].sort(),
    organization: {
      name: linked.organization.name ?? (title?.trim() || null),
      description: linked.organization.description ?? ($('meta[name="description"]').attr('content')?.trim() || null),
      locality: linked.organization.locality,
    },
  };
}

/**
 * Names with a job title beside them (same sentence, or the next or previous
 * text of one card), each with its own address and LinkedIn link: the card's
 * when the card holds that person alone, else those of the entry the name
 * heads (from it to the next person's entry, within their common block).
 */
function peopleInMarkup($: cheerio.CheerioAPI, pageUrl: string): FoundPerson[] {
  const units: Unit[] = [];
  const walk = (node: AnyNode) => {
    if (node.type === 'text') {
      const text = $(node).text().replace(/\s+/g, ' ').trim();
      for (const sentence of text ? text.split(sentenceEnd) : []) units.push({ text: sentence, node, emails: [] });
    } else if ('children' in node) {
      if ('attribs' in node) {
        const href = node.attribs.href ?? '';
        const emails = markupAddresses($, node);
        const linkedin = /linkedin\.com\/in\//i.test(href) ? href : undefined;
        if (emails.length > 0 || linkedin) units.push({ text: '', node, emails, linkedin });
      }
      for (const child of node.children) walk(child);
    }
  };
  walk($('body')[0] ?? $.root()[0]!);
  const segments = units.flatMap((unit, at) => (unit.text ? [{ ...unit, at }] : []));
  // Each person with their card, the blocks their name and title are in, and where their entry starts.
  const found: Array<{ person: FoundPerson; card: Element; blocks: Element[]; at: number }> = [];
  for (const [i, segment] of segments.entries()) {
    const line = withoutStop(segment.text);
    const inline = inlinePerson.exec(line);
    const role = inline && looksLikeName(inline[1]!) ? leadingTitle(inline[2]!) : null;
    if (role && !otherCompany(role)) {
      const card = blockOf(segment.node);
      found.push({ person: blank(inline![1]!, role), card, blocks: [card], at: segment.at });
      continue;
    }
    const named = peopleInProse(segment.text);
    if (named.length > 0) {
      const card = blockOf(segment.node);
      for (const [name, title] of named) found.push({ person: blank(name, title), card, blocks: [card], at: segment.at });
      continue;
    }
    if (!looksLikeName(line)) continue;
    const title = [segments[i + 1], segments[i + 2], segments[i - 1]].find((other) => {
      const text = other && leadingTitle(titleIn(other.text));
      return text && !looksLikeName(text) && !otherCompany(text) && closeTogether(segment.node, other.node);
    });
    if (title)
      found.push({
        person: blank(line, leadingTitle(titleIn(title.text))!),
        card: commonAncestor(segment.node, title.node),
        blocks: [blockOf(segment.node), blockOf(title.node)],
        at: Math.min(segment.at, title.at),
      });
  }
  return found.map(({ person, card, blocks, at }) => {
    const alone = found.filter((other) => other.card === card || contains(card, other.card)).length === 1;
    let emails: string[];
    let linkedin: string | undefined;
    if (alone) {
      emails = emailsIn($, $(card));
      linkedin = $(card).find('a[href*="linkedin.com/in/"]').attr('href');
    } else {
      // Several people in one block (lines, sentences): theirs is what follows their name up to the next person's,
      // in the block of their name or title, or elsewhere when it is named after them (not a press office's after the last).
      const next = Math.min(...found.map((other) => other.at).filter((start) => start > at));
      const entry = units.slice(at, next).filter((unit) => contains(card, unit.node));
      const near = (unit: Unit) => blocks.includes(blockOf(unit.node));
      emails = [
        ...new Set(
          entry.flatMap((unit) =>
            [...unit.emails, ...emailsInText(unit.text)].filter((email) => near(unit) || addressFit(email, person.name)),
          ),
        ),
      ];
      linkedin = entry.find((unit) => unit.linkedin && near(unit))?.linkedin;
    }
    const own = emails.filter((email) => !isGenericAddress(email));
    return { ...person, email: own.length === 1 ? own[0]! : null, linkedin_url: linkedin ? new URL(linkedin, pageUrl).toString() : null };
  });
}

/** The job title a text is, or starts with before an address ("CTO — anna@acme.com", "Head of Sales, EMEA, anna at acme dot com"). */
function leadingTitle(text: string): string | null {
  if (emailsInText(text).length === 0) return isJobTitle(text) ? text : null;
  for (const cut of [...text.matchAll(/\s*(?:[,;—–|·]|\s-\s)\s*/gu)].reverse()) {
    const title = text.slice(0, cut.index);
    if (emailsInText(text.slice(cut.index)).length > 0 && isJobTitle(title)) return title;
  }
  return null;
}

const blank = (name: string, title: string): FoundPerson => ({
  name: name.trim(),
  title: title.trim(),
  email: null,
  linkedin_url: null,
  phone: null,
});
const otherCompany = (title: string) => /\s(?:at|@)\s+\S/i.test(title);

const parentOf = (node: AnyNode): Element | null => (node.parent && node.parent.type !== 'root' ? (node.parent as Element) : null);

/** The nearest element that is a block of its own (a list item, a row, a card), for a one-line "Name — Title". */
function blockOf(node: AnyNode): Element {
  let element = parentOf(node)!;
  while (element && /^(a|span|strong|b|em|i|small)$/.test(element.name) && parentOf(element)) element = parentOf(element)!;
  return element;
}

function ancestors(node: AnyNode): Element[] {
  const list: Element[] = [];
  for (let element = parentOf(node); element; element = parentOf(element)) list.push(element);
  return list;
}

function commonAncestor(a: AnyNode, b: AnyNode): Element {
  const of = new Set(ancestors(b));
  return ancestors(a).find((element) => of.has(element)) ?? (parentOf(a) as Element);
}

/** Name and title belong together when they meet at most three levels above the name (a card, a row). */
const closeTogether = (a: AnyNode, b: AnyNode) => ancestors(a).indexOf(commonAncestor(a, b)) <= 2;

const contains = (outer: Element, inner: AnyNode) => ancestors(inner).includes(outer);
