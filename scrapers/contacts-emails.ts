import type * as cheerio from 'cheerio';
import type { AnyNode } from 'cheerio';

const address = /[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/gi;
// "anna [at] acme [dot] com", "anna (at) acme (dot) com", "anna{at}acme{dot}com"
const bracketedAt = /\s*[[({<]\s*at\s*[\])}>]\s*/gi;
const bracketedDot = /\s*[[({<]\s*dot\s*[\])}>]\s*/gi;
// "anna at acme dot com": only as a whole address, words joined by "dot".
const spelledOut = /\b([a-z0-9._%+-]+)\s+at\s+([a-z0-9-]+(?:\s+dot\s+[a-z0-9-]+)+)\b/gi;
const generic =
  /^(info|hello|hi|contact|sales|support|team|jobs|careers|press|media|office|admin|help|enquiries|inquiries|marketing|billing|privacy|legal|hr|noreply|no-reply|mail|webmaster|partners|investors)@/i;

export const isGenericAddress = (email: string) => generic.test(email);

/** Addresses written out in text, the obfuscated forms made plain first (entities are already decoded by the parser). */
export function emailsInText(text: string): string[] {
  const plain = text
    .replace(bracketedAt, '@')
    .replace(bracketedDot, '.')
    .replace(spelledOut, (_, local: string, domain: string) => `${local}@${domain.replace(/\s+dot\s+/gi, '.')}`);
  return [...plain.matchAll(address)].map((match) => match[0].toLowerCase().replace(/\.$/, ''));
}

/** Cloudflare's email protection: the address XOR-ed with the first byte, in hex. */
function decodeCloudflare(hex: string): string | null {
  if (!/^[0-9a-f]{4,}$/i.test(hex) || hex.length % 2) return null;
  const key = parseInt(hex.slice(0, 2), 16);
  let text = '';
  for (let i = 2; i < hex.length; i += 2) text += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16) ^ key);
  return text.includes('@') ? text.toLowerCase() : null;
}

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray "%": the address as written
  }
};

/** The address an element carries in its markup: a mailto link's, or Cloudflare's protected one. */
export function markupAddresses($: cheerio.CheerioAPI, element: AnyNode): string[] {
  const href = $(element).attr('href') ?? '';
  if (/^mailto:/i.test(href)) return emailsInText(decoded(href.slice(7).split('?')[0]!).trim().toLowerCase());
  const email = decodeCloudflare($(element).attr('data-cfemail') ?? '');
  return email ? [email] : [];
}

/** Every distinct address inside `scope`: mailto links, Cloudflare-protected ones, and text (plain or obfuscated). */
export function emailsIn($: cheerio.CheerioAPI, scope: cheerio.Cheerio<AnyNode>): string[] {
  const found = new Set<string>();
  scope.find('a[href^="mailto:" i], [data-cfemail]').each((_, element) => {
    for (const email of markupAddresses($, element)) found.add(email);
  });
  for (const email of emailsInText(spacedText(scope))) found.add(email);
  return [...found];
}

/** The text of `scope` with a space between elements' texts ("CEO" and "anna@…" in two paragraphs stay two words). */
function spacedText(scope: cheerio.Cheerio<AnyNode>): string {
  const parts: string[] = [];
  const walk = (node: AnyNode) => {
    if (node.type === 'text') parts.push(node.data);
    else if ('children' in node) for (const child of node.children) walk(child);
  };
  scope.each((_, node) => walk(node));
  return parts.join(' ').replace(/\s+/g, ' ');
}
