import { parse } from 'csv-parse/sync';

/** RFC 4180 rows (quoted fields may hold commas, doubled quotes and line breaks), read by csv-parse as a spreadsheet app would. */
export const parseCsv = (text: string): string[][] => parse(text, { relax_column_count: true });
