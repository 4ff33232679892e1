import { load, type CheerioAPI } from 'cheerio';
import type { ExtractField as FieldRule, ExtractRules } from '../schema/scrapers.ts';
type Scope = ReturnType<CheerioAPI>;

const falseWords = /^(false|no|0|off|n)$/i;

/**
 * "1,299.00" -> 1299, "1.299,50" -> 1299.5, "€ 12,5" -> 12.5, "3 reviews" -> 3.
 * The last of ',' and '.' is the decimal mark when both appear; a lone ','
 * is decimal only when one or two digits follow it.
 */
export function parseLocaleNumber(text: string): number | null {
  const match = /-?\d[\d.,\s\u00a0\u202f']*/.exec(text);
  if (!match) return null;
  let digits = match[0].replace(/[\s\u00a0\u202f']/g, '').replace(/[.,]+$/, '');
  const lastComma = digits.lastIndexOf(',');
  const lastDot = digits.lastIndexOf('.');
  if (lastComma >= 0 && lastDot >= 0) {
    const decimal = lastComma > lastDot ? ',' : '.';
    const thousands = decimal === ',' ? '.' : ',';
    digits = digits.split(thousands).join('').replace(decimal, '.');
  } else if (lastComma >= 0) {
    const decimals = digits.length - lastComma - 1;
    digits = digits.split(',').length === 2 && decimals <= 2 ? digits.replace(',', '.') : digits.split(',').join('');
  } else if (lastDot >= 0 && digits.split('.').length > 2) {
    digits = digits.split('.').join('');
  }
  const value = Number(digits);
  return Number.isFinite(value) ? value : null;
}

function coerce(raw: string | undefined, rule: FieldRule, pageUrl: string): unknown {
  if (raw === undefined) return null;
  const text = raw.replace(/\s+/g, ' ').trim();
  switch (rule.type) {
    case 'number':
      return parseLocaleNumber(text);
    case 'integer': {
      const value = parseLocaleNumber(text);
      return value === null ? null : Math.trunc(value);
    }
    case 'boolean':
      return !falseWords.test(text);
    case 'url':
      try {
        return text ? new URL(text, pageUrl).href : null;
      } catch {
        return null;
      }
    default:
      return text;
  }
}

function readField($: CheerioAPI, scope: Scope | undefined, rule: FieldRule, pageUrl: string): unknown {
  const matches = scope ? scope.find(rule.selector) : $(rule.selector);
  const read = (index: number) => {
    const element = matches.eq(index);
    return rule.attribute ? element.attr(rule.attribute) : element.text();
  };
  if (rule.all) {
    return matches
      .toArray()
      .map((_, index) => coerce(read(index), rule, pageUrl))
      .filter((value) => value !== null);
  }
  return matches.length ? coerce(read(0), rule, pageUrl) : null;
}

const readFields = ($: CheerioAPI, scope: Scope | undefined, rules: ExtractRules, pageUrl: string) =>
  Object.fromEntries(Object.entries(rules.fields).map(([name, rule]) => [name, readField($, scope, rule, pageUrl)]));

/** What one page yields: its items (with `items`) or its one record of fields. */
export type PageExtract = { items: Array<Record<string, unknown>> } | Record<string, unknown>;

export function extractFromHtml(html: string, pageUrl: string, rules: ExtractRules): PageExtract {
  return extractWith(load(html), pageUrl, rules);
}

function extractWith($: CheerioAPI, pageUrl: string, rules: ExtractRules): PageExtract {
  if (!rules.items) return readFields($, undefined, rules, pageUrl);
  return {
    items: $(rules.items)
      .toArray()
      .map((element) => readFields($, $(element), rules, pageUrl)),
  };
}

const absolute = (href: string | undefined, pageUrl: string): string | null => {
  if (!href) return null;
  try {
    return new URL(href, pageUrl).href;
  } catch {
    return null;
  }
};

/** The absolute URL of the next page's link, if the page has one. */
export function nextPageUrl(html: string, pageUrl: string, selector: string): string | null {
  return absolute(load(html)(selector).first().attr('href'), pageUrl);
}

/**
 * One page read once: its extract, and what leads on from it (the `next`
 * link's URL, or with `links` every link's absolute URL, in page order).
 */
export function readPage(html: string, pageUrl: string, rules: ExtractRules, leads: { next?: string; links?: boolean }) {
  const $ = load(html);
  const links = leads.links
    ? $('a[href]')
        .toArray()
        .map((element) => absolute($(element).attr('href'), pageUrl))
        .filter((url): url is string => url !== null)
    : [];
  return {
    extract: extractWith($, pageUrl, rules),
    next: leads.next ? absolute($(leads.next).first().attr('href'), pageUrl) : null,
    links,
  };
}

/**
 * Pages' extracts as one result: items concatenated in page order, or the
 * first page's record; in a crawl (`perPage`) a scraper without `items`
 * gives one item per page.
 */
export function mergeExtracts(pages: PageExtract[], rules: ExtractRules, perPage = false): PageExtract {
  if (!rules.items && perPage) return { items: pages as Array<Record<string, unknown>> };
  if (!rules.items) return pages[0] ?? readFields(load(''), undefined, rules, 'http://invalid/');
  return { items: pages.flatMap((page) => (page as { items: Array<Record<string, unknown>> }).items) };
}
