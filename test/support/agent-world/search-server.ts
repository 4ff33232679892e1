import * as cheerio from 'cheerio';

export interface SearchDocument {
  url: string;
  title: string;
  text: string;
}

const stopWords = new Set(['the', 'a', 'an', 'and', 'or', 'of', 'in', 'at', 'for', 'to', 'is', 'on', 'with', 'by', 'our', 'we']);
const tokens = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 1 && !stopWords.has(t));

/** Visible text and title of a page, for indexing. */
export function searchDocument(url: string, html: string): SearchDocument {
  const $ = cheerio.load(html);
  $('script, style').remove();
  return { url, title: $('title').text().trim(), text: $('body').text().replace(/\s+/g, ' ').trim() };
}

/**
 * BM25 over titles (counted three times) and text, as a SearXNG instance
 * would rank its engines' results well enough: `search(q, page)` answers
 * SearXNG's JSON shape, 10 results a page.
 */
export function createSearchIndex(documents: SearchDocument[]) {
  const indexed = documents.map((doc) => {
    const terms = [...tokens(doc.title), ...tokens(doc.title), ...tokens(doc.title), ...tokens(doc.text)];
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    return { doc, counts, length: terms.length };
  });
  const averageLength = indexed.reduce((sum, d) => sum + d.length, 0) / Math.max(1, indexed.length);
  const documentFrequency = new Map<string, number>();
  for (const { counts } of indexed) for (const term of counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const idf = (term: string) =>
    Math.log(1 + (indexed.length - (documentFrequency.get(term) ?? 0) + 0.5) / ((documentFrequency.get(term) ?? 0) + 0.5));

  return (query: string, page = 1) => {
    const wanted = [...new Set(tokens(query))];
    const scored = indexed
      .map(({ doc, counts, length }) => {
        let score = 0;
        for (const term of wanted) {
          const f = counts.get(term) ?? 0;
          if (f) score += idf(term) * ((f * 2.2) / (f + 1.2 * (0.25 + 0.75 * (length / averageLength))));
        }
        return { doc, score };
      })
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || (a.doc.url < b.doc.url ? -1 : 1));
    const results = scored
      .slice((page - 1) * 10, page * 10)
      .map(({ doc }) => ({ url: doc.url, title: doc.title, content: doc.text.slice(0, 200), engine: 'fixture' }));
    return { query, number_of_results: scored.length, results };
  };
}
