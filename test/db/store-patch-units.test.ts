import { expect, it } from 'vitest';
import { testPatch } from '../../src/db/ferretdb-binary.ts';

/**
 * The patch's own Go tests: each fast path of ours (decoding, encoding, plain projections, typed columns
 * computed in Go) gives what FerretDB's code or SQLite gives, over random documents, damaged copies of them
 * and random projections; a process killed while creating an index leaves nothing of it.
 */
it('passes the Go tests the FerretDB patch adds', () => {
  const { status, output } = testPatch(() => {});
  expect(status, output).toBe(0);
  expect(output).toMatch(/^ok\s+github.com\/FerretDB\/FerretDB\/internal\/handler\/sjson\s/m);
  expect(output).toMatch(/^ok\s+github.com\/FerretDB\/FerretDB\/internal\/handler\/common\s/m);
  expect(output).toMatch(/^ok\s+github.com\/FerretDB\/FerretDB\/internal\/backends\/sqlite\/metadata\s/m);
  expect(output).toMatch(/^ok\s+github.com\/FerretDB\/FerretDB\/internal\/backends\/sqlite\s/m);
  expect(output).not.toMatch(/no tests to run/);
}, 600_000);
