import * as cheerio from 'cheerio';

export interface ReadablePage {
  title: string;
  /** The visible text, whitespace collapsed, cut at `maxChars`. */
  text: string;
  /** Links to http(s) pages, absolute, once each, in page order. */
  links: Array<{ url: string; text: string }>;
}

/** What a reader (a model, the built-in researcher) needs of a page: its title, visible text and links. */
export function readablePage(html: string, pageUrl: string, maxChars = 6_000, maxLinks = 120): ReadablePage {
  const $ = cheerio.load(html);
  const links: ReadablePage['links'] = [];
  const seen = new Set<string>();
  $('a[href]').each((_, element) => {
    if (links.length >= maxLinks) return;
    const url = absoluteUrl($(element).attr('href')!, pageUrl);
    if (!url || seen.has(url)) return;
    seen.add(url);
    links.push({ url, text: $(element).text().replace(/\s+/g, ' ').trim().slice(0, 120) });
  });
  $('script, style, noscript, template, svg').remove();
  $('br, p, div, li, tr, h1, h2, h3, h4, h5, h6, section, article').after(' ');
  const text = $('body').text().replace(/\s+/g, ' ').trim();
  return { title: $('title').first().text().trim(), text: text.slice(0, maxChars), links };
}

/** An http(s) URL without its fragment, or null (mailto:, javascript:, a malformed href). */
export function absoluteUrl(href: string, base: string): string | null {
  try {
    const url = new URL(href, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.toString();
  } catch {
    return null;
  }
}
