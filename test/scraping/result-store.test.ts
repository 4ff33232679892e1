import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { deleteResult, loadResult, saveResult } from '../../src/scraping/result-store.ts';
import { freshDatabaseUri } from '../support/database.ts';

beforeAll(() => connectDatabase(freshDatabaseUri()));
afterAll(() => disconnectDatabase());

describe('scrape result storage', () => {
  it('keeps any JSON exactly: keys with dots and dollars, nested arrays, large results across chunks', async () => {
    const data = {
      'price.usd': 12.5,
      $ref: '#/x',
      nested: [[1, [2, { $where: 'x', 'a.b.c': null }]], []],
      unicode: 'Grüße — 東京',
      rows: Array.from({ length: 40_000 }, (_, i) => ({ i, text: `row ${i} `.repeat(8) })),
    };
    const { resultKey, resultChunks } = await saveResult('7d3f7a3e-1111-4a2b-9c3d-000000000001', data);
    expect(resultChunks).toBeGreaterThan(1);
    expect(await loadResult(resultKey, resultChunks)).toEqual(data);

    await deleteResult(resultKey, resultChunks);
    await expect(loadResult(resultKey, resultChunks)).rejects.toThrow('is missing');
  });
});
