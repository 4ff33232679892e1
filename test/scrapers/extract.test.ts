import { describe, expect, it } from 'vitest';
import { extractFromHtml, mergeExtracts, nextPageUrl, parseLocaleNumber } from '../../scrapers/extract.ts';

const page = `<html><body>
  <h1>  Spring   sale </h1>
  <div class="product"><h2> Kettle </h2><span class="price">$1,299.00</span><a href="/p/kettle?ref=1">more</a>
    <span class="tag">home</span><span class="tag">kitchen</span><input type="checkbox" checked></div>
  <div class="product"><h2>Mug</h2><span class="price">€ 12,50</span><a href="https://other.example/mug">more</a></div>
  <div class="product"><h2>Teapot</h2></div>
  <a class="next" href="?page=2">next</a>
</body></html>`;

describe('extraction', () => {
  it.each([
    ['1,299.00', 1299],
    ['1.299,50', 1299.5],
    ['€ 12,50', 12.5],
    ['12,5', 12.5],
    ['1,299', 1299],
    ['1 299,00 kr', 1299],
    ['-3.5', -3.5],
    ['3 reviews', 3],
    ['1.234.567', 1234567],
    ['free', null],
  ])('parses %s as %s', (text, value) => {
    expect(parseLocaleNumber(text)).toBe(value);
  });

  it('extracts items with typed, trimmed, absolute values', () => {
    const result = extractFromHtml(page, 'http://shop.test/catalogue?page=1', {
      items: '.product',
      fields: {
        title: { selector: 'h2', all: false, type: 'string' },
        price: { selector: '.price', all: false, type: 'number' },
        link: { selector: 'a', attribute: 'href', all: false, type: 'url' },
        tags: { selector: '.tag', all: true, type: 'string' },
        inStock: { selector: 'input', attribute: 'checked', all: false, type: 'boolean' },
      },
    });
    expect(result).toEqual({
      items: [
        { title: 'Kettle', price: 1299, link: 'http://shop.test/p/kettle?ref=1', tags: ['home', 'kitchen'], inStock: true },
        { title: 'Mug', price: 12.5, link: 'https://other.example/mug', tags: [], inStock: null },
        { title: 'Teapot', price: null, link: null, tags: [], inStock: null },
      ],
    });
  });

  it('extracts one record without items, and finds the next page', () => {
    const rules = {
      fields: {
        heading: { selector: 'h1', all: false, type: 'string' as const },
        count: { selector: '.price', all: true, type: 'integer' as const },
      },
    };
    expect(extractFromHtml(page, 'http://shop.test/', rules)).toEqual({ heading: 'Spring sale', count: [1299, 12] });
    expect(nextPageUrl(page, 'http://shop.test/catalogue?page=1', 'a.next')).toBe('http://shop.test/catalogue?page=2');
    expect(nextPageUrl('<p>end</p>', 'http://shop.test/', 'a.next')).toBeNull();
  });

  it('concatenates items across pages in page order', () => {
    const rules = { items: 'li', fields: { n: { selector: 'b', all: false, type: 'integer' as const } } };
    const pages = ['<li><b>1</b></li><li><b>2</b></li>', '<li><b>3</b></li>'].map((html) => extractFromHtml(html, 'http://x.test/', rules));
    expect(mergeExtracts(pages, rules)).toEqual({ items: [{ n: 1 }, { n: 2 }, { n: 3 }] });
  });
});
