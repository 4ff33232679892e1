/**
 * The maintainer's tool for the FerretDB fork (tools/ferretdb/README.md, "Carrying the fork"):
 *
 *   npm run -s ferretdb:fork -- open [--force]        the series as a git repository in .tools/ferretdb-fork
 *   npm run -s ferretdb:fork -- export                its commits back to tools/ferretdb/patches
 *   npm run -s ferretdb:fork -- check [--from NNNN]   every patch applies on the one before and builds on its own
 *   npm run -s ferretdb:fork -- build --without NNNN  a binary of the series without a change (to measure it)
 *   npm run -s ferretdb:fork -- import <diff>...      loose diffs of tools/ferretdb/patch made patches of the series
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, rmdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  applyPatch,
  copyPristineModule,
  goCommand,
  looseDiffsDir,
  packagesOf,
  pathsOf,
  patchesDir,
  projectRoot,
  runGo,
  runOrThrow,
  seriesPatches,
  shown,
  toolsDir,
  wrapperModFile,
} from './series.ts';

const forkDir = join(toolsDir, 'ferretdb-fork');
const checkDir = join(toolsDir, 'ferretdb-check');
const variantDir = join(toolsDir, 'ferretdb-variant');
/** The tag of the first commit: FerretDB as published, which the series applies to. */
const upstreamTag = 'upstream';

function go(): string {
  const found = goCommand();
  if (!found) throw new Error('Go (>= 1.24) is needed, on PATH or in /usr/local/go');
  return found;
}

/** git in a repository of the tool's, with no user or system configuration, so what it writes does not depend on them. */
function git(dir: string, args: string[], what: string, env: Record<string, string> = {}): string {
  return runOrThrow('git', args, what, {
    cwd: dir,
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CEILING_DIRECTORIES: dirname(dir),
      GIT_COMMITTER_NAME: 'leadops',
      GIT_COMMITTER_EMAIL: 'leadops@localhost',
      ...env,
    },
  });
}

/** A git repository in dir holding FerretDB as published, its one commit tagged `upstream`. */
function initPristine(dir: string) {
  copyPristineModule(go(), dir);
  git(dir, ['init', '-q', '-b', 'main'], 'git init');
  // -f: FerretDB's .gitignore names *.txt, which its build/version package embeds.
  git(dir, ['add', '-A', '-f'], 'git add');
  const date = '2025-05-27T00:00:00Z';
  git(
    dir,
    ['commit', '-q', '-m', 'FerretDB v1.24.2 as published', '-m', 'github.com/FerretDB/FerretDB@v1.24.2 from the Go module proxy.'],
    'git commit',
    {
      GIT_AUTHOR_NAME: 'FerretDB',
      GIT_AUTHOR_EMAIL: 'info@ferretdb.io',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  );
  git(dir, ['tag', upstreamTag], 'git tag');
}

/** Applies a patch as a commit, its author, date and message from the patch. */
const am = (dir: string, patch: string) =>
  git(
    dir,
    ['am', '-q', '--keep-cr', '--committer-date-is-author-date', join(patchesDir, patch)],
    `${patch} does not apply on the one before it;`,
  );

function open(force: boolean) {
  if (existsSync(forkDir) && !force)
    throw new Error(`${shown(forkDir)} is open already: export it (export), or discard it and open the series again (open --force)`);
  initPristine(forkDir);
  for (const patch of seriesPatches()) am(forkDir, patch);
  console.log(`${shown(forkDir)}: FerretDB as published (tag ${upstreamTag}) and a commit per patch on branch main.`);
}

/** The series as `git format-patch` writes it from the open repository, into dir. */
function formatPatches(dir: string) {
  if (!existsSync(join(forkDir, '.git'))) throw new Error(`Nothing is open at ${shown(forkDir)}: open it first (open)`);
  if (git(forkDir, ['status', '--porcelain'], 'git status').trim())
    throw new Error(`${shown(forkDir)} has changes that are not committed: commit them (one commit per change) first`);
  if (git(forkDir, ['rev-list', '--merges', `${upstreamTag}..HEAD`], 'git rev-list').trim())
    throw new Error(`${shown(forkDir)} holds merges: the series is a line of commits on ${upstreamTag}`);
  git(forkDir, ['format-patch', '-q', '-N', '--zero-commit', '--no-signature', '-o', dir, `${upstreamTag}..HEAD`], 'git format-patch');
}

const sameFiles = (a: string, b: string) =>
  readdirSync(a).length === readdirSync(b).length &&
  readdirSync(a).every((file) => existsSync(join(b, file)) && readFileSync(join(a, file)).equals(readFileSync(join(b, file))));

function exportSeries() {
  const fresh = mkdtempSync(join(toolsDir, 'ferretdb-export-'));
  try {
    formatPatches(fresh);
    mkdirSync(patchesDir, { recursive: true });
    const before = new Set(seriesPatches());
    for (const patch of seriesPatches(fresh)) {
      const target = join(patchesDir, patch);
      if (before.delete(patch) && readFileSync(target).equals(readFileSync(join(fresh, patch)))) continue;
      cpSync(join(fresh, patch), target);
      console.log(`written ${shown(target)}`);
    }
    for (const gone of before) {
      rmSync(join(patchesDir, gone));
      console.log(`removed ${shown(join(patchesDir, gone))}`);
    }
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

/** Refuses to add to an open repository that is not the series in tools/ferretdb/patches (work not exported, say). */
function requireInSync() {
  const fresh = mkdtempSync(join(toolsDir, 'ferretdb-export-'));
  try {
    formatPatches(fresh);
    if (!sameFiles(fresh, patchesDir))
      throw new Error(`${shown(forkDir)} is not the series in ${shown(patchesDir)}: export it first, or open --force to discard it`);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

const numberOf = (patch: string) => patch.slice(0, 4);

/**
 * Applies every patch on the one before, each as `git am` takes it, and from `from` on builds the wrapper against
 * the result and vets the packages the patch touches (which compiles their tests). Go's build cache makes each
 * step build only what the patch changed and what depends on it.
 */
function check(from = '0000') {
  const started = performance.now();
  initPristine(checkDir);
  const modFile = wrapperModFile('ferretdb-check', checkDir);
  const hint = `see ${shown(join(projectRoot, 'tools/ferretdb/README.md'))} (Carrying the fork)`;
  for (const patch of seriesPatches()) {
    const step = performance.now();
    am(checkDir, patch);
    if (numberOf(patch) < from) continue;
    runGo(go(), ['build', `-modfile=${modFile}`, '-o', '/dev/null', '.'], `${patch}: building the wrapper`, hint);
    const packages = packagesOf(checkDir, pathsOf(join(patchesDir, patch)));
    if (packages.length) runGo(go(), ['vet', `-modfile=${modFile}`, ...packages], `${patch}: go vet (its packages and their tests)`, hint);
    console.log(`${patch}: applies, builds, ${packages.length} packages vetted (${((performance.now() - step) / 1000).toFixed(1)} s)`);
  }
  console.log(`The series checked in ${((performance.now() - started) / 1000).toFixed(0)} s.`);
}

/** Builds the series without the given changes (numbers or names) into .tools/bin, for measuring one against the rest. */
function buildWithout(excluded: string[], output?: string) {
  const patches = seriesPatches();
  const left = excluded.map((name) => {
    const patch = patches.find((p) => p === name || numberOf(p) === name.padStart(4, '0'));
    if (!patch) throw new Error(`No patch ${name} in ${shown(patchesDir)}`);
    return patch;
  });
  copyPristineModule(go(), variantDir);
  for (const patch of patches.filter((p) => !left.includes(p))) {
    try {
      applyPatch(variantDir, join(patchesDir, patch));
    } catch (error) {
      throw new Error(`Without ${left.join(', ')}: ${(error as Error).message} (it builds on what is left out: leave it out too)`);
    }
  }
  const binary = resolve(output ?? join(toolsDir, 'bin', `ferretdb-without-${left.map(numberOf).join('-')}`));
  runGo(go(), ['build', `-modfile=${wrapperModFile('ferretdb-variant', variantDir)}`, '-o', binary, '.'], 'Building FerretDB', 'see above');
  console.log(`${binary}: the series without ${left.join(', ')}. Run a bench on it with FERRETDB_BIN=${binary}.`);
}

/** The author of a loose diff: whoever committed it to the project last, if it is committed. */
function authorOf(diff: string): Record<string, string> {
  const found = spawnSync('git', ['log', '-1', '--format=%an%x00%ae%x00%aI', '--', diff], { cwd: projectRoot, encoding: 'utf8' });
  const [name, email, date] = found.stdout.trim().split('\0');
  return name && email && date ? { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_AUTHOR_DATE: date } : {};
}

/**
 * Makes loose diffs (tools/ferretdb/patch/NN-name.diff, made against the series' final tree, added files included)
 * the next patches of the series, in the order of their numbers: each a commit on the open repository (opened
 * first if need be), exported, checked, and the diff removed.
 */
function importDiffs(files: string[]) {
  if (!files.length) throw new Error('import: name the diffs, e.g. tools/ferretdb/patch/20-name.diff');
  const diffs = files.map((file) => resolve(file)).sort((a, b) => parseInt(basename(a), 10) - parseInt(basename(b), 10));
  if (existsSync(forkDir)) requireInSync();
  else open(false);
  const first = String(seriesPatches().length + 1).padStart(4, '0');
  for (const diff of diffs) {
    const name = basename(diff, '.diff').replace(/^\d+-/, '');
    try {
      git(forkDir, ['apply', '--index', '--whitespace=nowarn', diff], 'git apply');
    } catch {
      // Where the series changed a file since the diff was made: merge, leaving conflicts marked if any.
      git(forkDir, ['apply', '--index', '--3way', '--whitespace=nowarn', diff], `${shown(diff)} does not apply on the series;`);
    }
    git(
      forkDir,
      ['commit', '-q', '-m', name.replace(/-/g, ' '), '-m', `From ${shown(diff)}; what it changes and why: tools/ferretdb/README.md.`],
      'git commit',
      authorOf(diff),
    );
  }
  exportSeries();
  check(first);
  for (const diff of diffs) rmSync(diff);
  if (existsSync(looseDiffsDir) && readdirSync(looseDiffsDir).length === 0) rmdirSync(looseDiffsDir);
  console.log(`Imported from ${first} on; give each its what and why in tools/ferretdb/README.md.`);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    force: { type: 'boolean', default: false },
    from: { type: 'string' },
    without: { type: 'string', multiple: true, default: [] },
    output: { type: 'string', short: 'o' },
  },
});
const [command, ...rest] = positionals;
try {
  if (command === 'open') open(values.force);
  else if (command === 'export') exportSeries();
  else if (command === 'check') check(values.from?.padStart(4, '0'));
  else if (command === 'build' && values.without.length) buildWithout(values.without, values.output);
  else if (command === 'import') importDiffs(rest);
  else {
    console.error(
      readFileSync(new URL(import.meta.url), 'utf8')
        .match(/\/\*\*([\s\S]*?)\*\//)![1]!
        .replace(/^ \*/gm, ''),
    );
    process.exitCode = 2;
  }
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
}
