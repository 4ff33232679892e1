import sanitizeHtml from 'sanitize-html';
import { clickUrl } from './links.ts';

/** Addresses a click can be tracked on: a mailto: link opens a mail client, not a page, and is left alone. */
const trackable = /^https?:\/\//i;

/**
 * A message body with each http(s) link pointing at its tracked address
 * (`/c/<token>`, which records the click and redirects to the original),
 * rewritten by an HTML parser (sanitize-html's, which stored bodies passed
 * through already), so only real `href` attributes change. A body without
 * a link is returned as it is, unparsed.
 */
export function withTrackedLinks(html: string, recordId: string): string {
  if (!/<a\s/i.test(html)) return html;
  return sanitizeHtml(html, {
    // Everything kept as it is: the body was sanitized when its step was stored.
    allowedTags: false,
    allowedAttributes: false,
    allowVulnerableTags: true,
    transformTags: {
      a: (tagName, attribs) => ({
        tagName,
        attribs:
          attribs.href && trackable.test(attribs.href.trim()) ? { ...attribs, href: clickUrl(recordId, attribs.href.trim()) } : attribs,
      }),
    },
  });
}
