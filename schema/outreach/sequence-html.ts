import sanitizeHtml from 'sanitize-html';

/** Link schemes a body may use; anything else (javascript:, data:, relative links) loses its href. */
const allowedHref = /^(https?:|mailto:)/i;

/**
 * A step's body as stored and sent: only `<p>`, `<br>`, `<strong>` and
 * `<a href>` with an http, https or mailto link. Other tags are dropped
 * with their text kept (`<h1>Hi</h1>` becomes `Hi`), except scripts and
 * styles, which go with their content; every other attribute, event
 * handlers included, is dropped.
 */
export function sanitizeBody(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: ['p', 'br', 'strong', 'a'],
    allowedAttributes: { a: ['href'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesAppliedToAttributes: ['href'],
    allowProtocolRelative: false,
    // sanitize-html keeps scheme-less (relative) hrefs, which mean nothing in an email and could be filled with a scheme by a merge variable.
    transformTags: {
      a: (tagName, attribs): sanitizeHtml.Tag => ({
        tagName,
        attribs: attribs.href && allowedHref.test(attribs.href.trim()) ? { href: attribs.href } : {},
      }),
    },
  });
}

const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** A value for HTML text or a quoted attribute. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => htmlEscapes[c]!);

const namedEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
const decodeEntities = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== '#') return namedEntities[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });

const stripTags = (html: string) => html.replace(/<[^>]*>/g, '');

/** A link in plain text: its text, and its address when that says something the text does not. */
function linkText(href: string, inner: string): string {
  const text = decodeEntities(stripTags(inner)).trim();
  const url = decodeEntities(href);
  if (!text) return url;
  return url === text || url === `mailto:${text}` ? text : `${text} (${url})`;
}

/** The text part of a message: paragraphs and line breaks kept, links written out, tags gone, entities decoded. */
export function plainText(html: string): string {
  const text = html
    // Whitespace in HTML source is one space; the line structure comes from the tags.
    .replace(/\s+/g, ' ')
    .replace(/<a\b[^>]*?href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_, href: string, inner: string) => escapeHtml(linkText(href, inner)))
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>/gi, '\n\n');
  return decodeEntities(stripTags(text))
    .replace(/[ \t]*\n[ \t]*/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
