import { expect, it } from 'vitest';
import { raceTested, testTouchedPackages } from '../../tools/ferretdb/build.ts';

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * FerretDB's own unit tests of every package the fork's series touches (its own tests among them: each fast path
 * of ours gives what FerretDB's code or SQLite gives, over random documents), built with the SQLite the binary
 * ships; the statement cache's, the writer connection's and the SQLite backend's packages again under the race
 * detector.
 */
it("passes FerretDB's own unit tests of every package the series touches", () => {
  const { status, output, packages } = testTouchedPackages(() => {});
  expect(status, output).toBe(0);
  expect(packages).toEqual(
    expect.arrayContaining(
      ['internal/backends/sqlite', 'internal/backends/sqlite/metadata', 'internal/backends/sqlite/metadata/pool', 'internal/util/fsql'].map(
        (dir) => `github.com/FerretDB/FerretDB/${dir}`,
      ),
    ),
  );
  for (const pkg of packages) expect(output).toMatch(new RegExp(`^(ok|\\?)\\s+${escaped(pkg)}\\s`, 'm'));
  for (const pkg of raceTested) expect(output.match(new RegExp(`^ok\\s+${escaped(pkg)}\\s`, 'gm'))).toHaveLength(2);
}, 900_000);
