import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { loadResult, saveResult } from '../../src/scraping/result-store.ts';
import { freshDatabaseUri } from '../support/database.ts';

beforeAll(() => connectDatabase(freshDatabaseUri()));
afterAll(() => disconnectDatabase());

describe('scrape result storage', () => {
  it('keeps any JSON exactly: keys with dots and dollars, nested arrays, large results across chunks', async () => {
    const data = {
      'price.usd': 12.5,
      $ref: '#/x',
      nested: [[1, [2, { '$where': 'x', 'a.b.c': null }]], []],
      unicode: 'Grüße — 東京',
      rows: Array.from({ length: 40_000 }, (_, i) => ({ i, text: `row ${i} `.repeat(8) })),
    };
    const chunks = await saveResult('7d3f7a3e-1111-4a2b-9c3d-000000000001', data);
    expect(chunks).toBeGreaterThan(1);
    expect(await loadResult('7d3f7a3e-1111-4a2b-9c3d-000000000001', chunks)).toEqual(data);
  });
});
