/**
 * Builds the embedded FerretDB: the pinned module copied out of Go's module cache, the series of patches in
 * tools/ferretdb/patch applied in order, the wrapper built against it (tools/ferretdb/README.md); and FerretDB
 * as published, which the differential test compares it with. Also runs FerretDB's own unit tests of the packages
 * the series touches.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  applyPatch,
  copyPristineModule,
  filesUnder,
  goCommand,
  packagesOf,
  pathsOf,
  patchDir,
  refuseLooseDiffs,
  runGo,
  seriesPatches,
  shown,
  sourceDir,
  toolsDir,
  wrapperDir,
  wrapperModFile,
} from './series.ts';

/** The patched copy of the FerretDB module the wrapper's go.mod replaces the pinned one with. */
const patchedModuleDir = join(toolsDir, 'ferretdb-module');

/** The two builds: the service's patched FerretDB, and the unpatched one the differential test compares it with. */
export type FerretDbBuild = 'patched' | 'upstream';

const binaryOf = (build: FerretDbBuild) => join(toolsDir, 'bin', build === 'patched' ? 'ferretdb' : 'ferretdb-upstream');
/** The sources a binary was built from, so a changed wrapper or patch is rebuilt. */
const builtFromFileOf = (build: FerretDbBuild) => `${binaryOf(build)}.source-sha256`;

function sourceHash(build: FerretDbBuild): string {
  const dir = build === 'patched' ? sourceDir : wrapperDir;
  const hash = createHash('sha256').update(build);
  for (const file of filesUnder(dir)) hash.update(file).update(readFileSync(join(dir, file)));
  return hash.digest('hex');
}

const isCurrent = (build: FerretDbBuild, hash: string) =>
  existsSync(binaryOf(build)) && existsSync(builtFromFileOf(build)) && readFileSync(builtFromFileOf(build), 'utf8') === hash;

/** Copies the pinned FerretDB module out of Go's module cache and applies the series to the copy, in order. */
function preparePatchedModule(go: string) {
  refuseLooseDiffs();
  copyPristineModule(go, patchedModuleDir);
  for (const patch of seriesPatches()) applyPatch(patchedModuleDir, join(patchDir, patch));
}

/**
 * Finds the FerretDB binary, building it on first use (and again when the wrapper or the series changes).
 * FerretDB 1.24 is built from the Go module proxy through the small wrapper in tools/ferretdb/wrapper (the
 * upstream command refuses to run outside its own repo), with the series applied to a copy of the module.
 */
export function ensureFerretDbBinary(log: (line: string) => void, explicit?: string, build: FerretDbBuild = 'patched'): string {
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`FERRETDB_BIN points at ${explicit}, which does not exist`);
    return explicit;
  }
  const binary = binaryOf(build);
  const hash = sourceHash(build);
  if (isCurrent(build, hash)) return binary;
  const go = goCommand();
  if (!go) {
    if (existsSync(binary)) return binary;
    throw new Error(
      'No database configured: set MONGODB_URI to a MongoDB 6+ server, or install Go (>= 1.24) so the embedded FerretDB can be built, or set FERRETDB_BIN.',
    );
  }
  log(
    `Building the embedded FerretDB 1.24${build === 'upstream' ? ' as published (unpatched)' : ''} from the Go module proxy (first run only, about a minute)...`,
  );
  mkdirSync(join(toolsDir, 'bin'), { recursive: true });
  if (build === 'patched') {
    preparePatchedModule(go);
    runGo(go, ['build', '-o', binary, '.'], 'Building FerretDB');
  } else {
    runGo(go, ['build', `-modfile=${wrapperModFile('ferretdb-upstream', null)}`, '-o', binary, '.'], 'Building FerretDB');
  }
  if (!existsSync(binary)) throw new Error(`Building FerretDB left no binary at ${shown(binary)}`);
  writeFileSync(builtFromFileOf(build), hash);
  log(`FerretDB built at ${binary}`);
  return binary;
}

/**
 * The touched packages whose tests cannot run here, with why; FerretDB's `-short` mode skips exactly those tests
 * (its other tests in the package still run).
 */
export const needsPostgreSql: Record<string, string> = {
  'github.com/FerretDB/FerretDB/internal/backends':
    'its contract tests (TestVersion, TestListDatabases, TestCollection*, TestCappedCollectionInsertAllDeleteAll, TestListCollections) open every backend, PostgreSQL at 127.0.0.1:5432 included, for each test',
};

/** The packages the series touches (a file of theirs changed, added or removed by a patch), by import path. */
export function touchedPackages(): string[] {
  const paths = seriesPatches().flatMap((patch) => pathsOf(join(patchDir, patch)));
  return packagesOf(patchedModuleDir, paths);
}

/**
 * Packages whose tests also run under the race detector: the statement cache's and the writer connection's, and the
 * SQLite backend's, whose stress tests create and drop collections and indexes from many goroutines.
 */
export const raceTested = ['internal/util/fsql', 'internal/backends/sqlite', 'internal/backends/sqlite/metadata'].map(
  (dir) => `github.com/FerretDB/FerretDB/${dir}`,
);

/**
 * Runs FerretDB's own unit tests of every package the series touches, in the patched module (made again from the
 * series first): go test's exit status and output. They run in the wrapper's module, so they are built with the
 * dependencies the binary is (its SQLite, for one), not the older ones FerretDB's own go.mod names; and as a debug
 * build, as FerretDB's own Taskfile runs them (a leaked iterator or transaction panics).
 */
export function testTouchedPackages(log: (line: string) => void) {
  ensureFerretDbBinary(log);
  const go = goCommand();
  if (!go) throw new Error('The Go tests of the FerretDB series need Go (>= 1.24) on PATH or in /usr/local/go');
  preparePatchedModule(go);
  const packages = touchedPackages();
  const modFile = wrapperModFile('ferretdb-test');
  const goTest = (args: string[]) =>
    spawnSync(go, ['test', `-modfile=${modFile}`, '-tags=ferretdb_debug', '-count=1', '-timeout=5m', ...args], {
      cwd: wrapperDir,
      encoding: 'utf8',
      env: { ...process.env, GOFLAGS: '-mod=mod' },
      maxBuffer: 64 * 1024 * 1024,
    });
  const runs = [
    goTest(packages.filter((p) => !needsPostgreSql[p])),
    goTest(['-short', ...packages.filter((p) => needsPostgreSql[p])]),
    goTest(['-race', ...raceTested]),
  ];
  return {
    packages,
    status: runs.find((run) => run.status !== 0)?.status ?? 0,
    output: runs.map((run) => `${run.stdout}${run.stderr}`).join(''),
  };
}
