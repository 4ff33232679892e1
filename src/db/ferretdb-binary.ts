import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = resolve(fileURLToPath(import.meta.url), '../../..');
const sourceDir = join(projectRoot, 'tools', 'ferretdb');
const wrapperDir = join(sourceDir, 'wrapper');
const patchDir = join(sourceDir, 'patch');
const toolsDir = join(projectRoot, '.tools');
/** The patched copy of the FerretDB module the wrapper's go.mod replaces the pinned one with. */
const patchedModuleDir = join(toolsDir, 'ferretdb-module');
const ferretDbModule = 'github.com/FerretDB/FerretDB@v1.24.2';

/** The two builds: the service's patched FerretDB, and the unpatched one the differential test compares it with. */
export type FerretDbBuild = 'patched' | 'upstream';

const binaryOf = (build: FerretDbBuild) => join(toolsDir, 'bin', build === 'patched' ? 'ferretdb' : 'ferretdb-upstream');
/** The sources a binary was built from, so a changed wrapper or patch is rebuilt. */
const builtFromFileOf = (build: FerretDbBuild) => `${binaryOf(build)}.source-sha256`;

const onPath = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
const goCommand = () => onPath('go') || (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : '');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => statSync(join(dir, file)).isFile())
    .sort();
}

function sourceHash(build: FerretDbBuild): string {
  const hash = createHash('sha256').update(build);
  for (const file of filesUnder(build === 'patched' ? sourceDir : wrapperDir)) {
    hash.update(file).update(readFileSync(join(build === 'patched' ? sourceDir : wrapperDir, file)));
  }
  return hash.digest('hex');
}

const isCurrent = (build: FerretDbBuild, hash: string) =>
  existsSync(binaryOf(build)) && existsSync(builtFromFileOf(build)) && readFileSync(builtFromFileOf(build), 'utf8') === hash;

function run(go: string, args: string[], what: string): string {
  const result = spawnSync(go, args, {
    cwd: wrapperDir,
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.status !== 0)
    throw new Error(`${what} failed (go exited ${result.status}); set MONGODB_URI to use an existing MongoDB instead.`);
  return result.stdout;
}

/** The patch's diffs, in the order of their numbers (as text, 10 would come before 2). */
const diffs = () =>
  readdirSync(patchDir)
    .filter((file) => file.endsWith('.diff'))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10));

/**
 * Copies the pinned FerretDB module out of Go's module cache and applies the project's
 * patch to the copy (tools/ferretdb/README.md says what each part changes): the files the
 * patch adds, then the diffs (which may change those files too).
 */
function preparePatchedModule(go: string) {
  const { Dir: pristine } = JSON.parse(run(go, ['mod', 'download', '-json', ferretDbModule], 'Downloading FerretDB')) as { Dir: string };
  rmSync(patchedModuleDir, { recursive: true, force: true });
  cpSync(pristine, patchedModuleDir, { recursive: true });
  // The module cache is read-only.
  chmodSync(patchedModuleDir, 0o755);
  for (const file of readdirSync(patchedModuleDir, { recursive: true, encoding: 'utf8' })) {
    chmodSync(join(patchedModuleDir, file), statSync(join(patchedModuleDir, file)).isDirectory() ? 0o755 : 0o644);
  }
  const added = join(patchDir, 'files');
  for (const file of filesUnder(added)) {
    mkdirSync(resolve(patchedModuleDir, file, '..'), { recursive: true });
    cpSync(join(added, file), join(patchedModuleDir, file));
  }
  for (const diff of diffs()) {
    // Outside any repository (the ceiling keeps git from finding this project's), git apply patches the files under cwd.
    const applied = spawnSync('git', ['apply', '--whitespace=nowarn', join(patchDir, diff)], {
      cwd: patchedModuleDir,
      encoding: 'utf8',
      env: { ...process.env, GIT_CEILING_DIRECTORIES: toolsDir },
    });
    if (applied.status !== 0) throw new Error(`Applying tools/ferretdb/patch/${diff} failed: ${applied.stderr.trim()}`);
  }
}

/**
 * A copy of the wrapper's go.mod (and go.sum beside it) in .tools, for `go -modfile`: the
 * wrapper's files stay as they are (they decide when FerretDB is rebuilt) whatever go writes.
 */
function wrapperModFile(name: string, goMod = readFileSync(join(wrapperDir, 'go.mod'), 'utf8')): string {
  const modFile = join(toolsDir, `${name}.mod`);
  writeFileSync(modFile, goMod);
  writeFileSync(join(toolsDir, `${name}.sum`), readFileSync(join(wrapperDir, 'go.sum')));
  return modFile;
}

/** The go.mod of the unpatched build: the wrapper's own without its `replace` line, so the pinned module is built as published. */
const upstreamModFile = () =>
  wrapperModFile('ferretdb-upstream', readFileSync(join(wrapperDir, 'go.mod'), 'utf8').replace(/^replace .*$/m, ''));

/**
 * Finds the FerretDB binary, building it on first use (and again when the wrapper or the
 * patch changes). FerretDB 1.24 is built from the Go module proxy through the small wrapper
 * in tools/ferretdb/wrapper (the upstream command refuses to run outside its own repo), with
 * the project's patch applied to a copy of the module (tools/ferretdb/README.md).
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
    run(go, ['build', '-o', binary, '.'], 'Building FerretDB');
  } else {
    run(go, ['build', `-modfile=${upstreamModFile()}`, '-o', binary, '.'], 'Building FerretDB');
  }
  if (!existsSync(binary)) throw new Error(`Building FerretDB left no binary at ${relative(projectRoot, binary)}`);
  writeFileSync(builtFromFileOf(build), hash);
  log(`FerretDB built at ${binary}`);
  return binary;
}

/** The path of the file a section of a git diff adds, if it adds one. */
function addedFile(section: string): string[] {
  const added = /^new file mode /m.test(section) && /^\+\+\+ b\/(.+)$/m.exec(section);
  return added ? [added[1]!] : [];
}

/**
 * Runs the Go tests the patch adds (its files ending in `_test.go`, each comparing a fast path of ours with
 * FerretDB's own or with SQLite) in the patched module, built first: go test's exit status and output. They run
 * in the wrapper's module, so they are built with the dependencies the binary is (its SQLite, for one), not the
 * older ones FerretDB's own go.mod names.
 */
export function testPatch(log: (line: string) => void): { status: number | null; output: string } {
  ensureFerretDbBinary(log);
  const go = goCommand();
  if (!go) throw new Error('The Go tests of the FerretDB patch need Go (>= 1.24) on PATH or in /usr/local/go');
  // The test files of patch/files/ and those a diff adds, read as the patched module holds them.
  const tests = [
    ...filesUnder(join(patchDir, 'files')),
    ...diffs().flatMap((diff) =>
      readFileSync(join(patchDir, diff), 'utf8')
        .split(/^diff --git /m)
        .flatMap(addedFile),
    ),
  ].filter((file) => file.endsWith('_test.go'));
  const names = tests.flatMap((file) =>
    [...readFileSync(join(patchedModuleDir, file), 'utf8').matchAll(/^func (Test\w+)\(/gm)].map((m) => m[1]),
  );
  const packages = [...new Set(tests.map((file) => `github.com/FerretDB/FerretDB/${dirname(file)}`))];
  const modFile = wrapperModFile('ferretdb-test');
  const result = spawnSync(go, ['test', `-modfile=${modFile}`, '-count=1', '-run', `^(${names.join('|')})$`, ...packages], {
    cwd: wrapperDir,
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: '-mod=mod' },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
