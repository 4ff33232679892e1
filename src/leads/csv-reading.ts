import { Readable } from 'node:stream';
import { parse } from 'csv-parse';

/**
 * Reading a CSV file as it streams: UTF-8 (a byte-order mark dropped), its separator (comma, semicolon or tab)
 * found in the header row, RFC 4180 quoting (separators, doubled quotes and line breaks inside quotes), LF or CRLF
 * line ends. csv-parse does the parsing; nothing holds the whole file.
 */
export const delimiters = [',', ';', '\t'] as const;

/** The separator the header row uses most outside quotes (a comma when it has none). */
export function detectDelimiter(firstLine: string): string {
  const counts = new Map<string, number>(delimiters.map((d) => [d, 0]));
  let quoted = false;
  for (const char of firstLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  return [...counts.entries()].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
}

/** The file's text so far up to its first line end (or all of it): what detectDelimiter reads. */
export const firstLineOf = (text: string) => text.split(/\r?\n/, 1)[0]!;

/** UTF-8 text from bytes as they come, strictly: bytes that are not UTF-8 throw (a byte-order mark is dropped). */
export async function* utf8Text(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of bytes) yield decoder.decode(chunk, { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** csv-parse's options for a file with this separator: rows of any length, empty lines skipped. */
export const parserOptions = (delimiter: string) => ({
  delimiter,
  bom: true,
  relax_column_count: true,
  skip_empty_lines: true,
});

/** The records of CSV text arriving in pieces, each an array of cells, the header row first. */
export function csvRecords(text: AsyncIterable<string>, delimiter: string): AsyncIterable<string[]> {
  const parser = parse(parserOptions(delimiter));
  // A failure reading the text (a chunk missing, bytes not UTF-8) fails the parser, and so the loop reading it.
  const source = Readable.from(text);
  source.on('error', (error) => parser.destroy(error));
  source.pipe(parser);
  return parser;
}
