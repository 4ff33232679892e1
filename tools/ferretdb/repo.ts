/**
 * The fork as a git repository (.tools/ferretdb-fork): FerretDB as published, tagged `upstream`, and a commit per
 * patch of tools/ferretdb/patch; exporting it back, checking every patch on its own, building without a change.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  applyPatch,
  copyPristineModule,
  goCommand,
  packagesOf,
  pathsOf,
  patchDir,
  projectRoot,
  runGo,
  runOrThrow,
  seriesPatches,
  shown,
  toolsDir,
  wrapperModFile,
} from './series.ts';

export const forkDir = join(toolsDir, 'ferretdb-fork');
const checkDir = join(toolsDir, 'ferretdb-check');
const variantDir = join(toolsDir, 'ferretdb-variant');
/** The tag of the first commit: FerretDB as published, which the series applies to. */
const upstreamTag = 'upstream';

export function go(): string {
  const found = goCommand();
  if (!found) throw new Error('Go (>= 1.24) is needed, on PATH or in /usr/local/go');
  return found;
}

/** git in a repository of the tool's, with no user or system configuration, so what it writes does not depend on them. */
export function git(dir: string, args: string[], what: string, env: Record<string, string> = {}, input?: string): string {
  return runOrThrow('git', args, what, {
    cwd: dir,
    ...(input === undefined ? {} : { input, stdio: ['pipe', 'pipe', 'pipe'] }),
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
    ['am', '-q', '--keep-cr', '--committer-date-is-author-date', join(patchDir, patch)],
    `${patch} does not apply on the one before it;`,
  );

export function open(force: boolean) {
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

/** Whether two folders hold the same series of patches, byte for byte. */
const sameSeries = (a: string, b: string) =>
  seriesPatches(a).join() === seriesPatches(b).join() &&
  seriesPatches(a).every((patch) => readFileSync(join(a, patch)).equals(readFileSync(join(b, patch))));

export function exportSeries() {
  const fresh = mkdtempSync(join(toolsDir, 'ferretdb-export-'));
  try {
    formatPatches(fresh);
    mkdirSync(patchDir, { recursive: true });
    const before = new Set(seriesPatches());
    for (const patch of seriesPatches(fresh)) {
      const target = join(patchDir, patch);
      if (before.delete(patch) && readFileSync(target).equals(readFileSync(join(fresh, patch)))) continue;
      cpSync(join(fresh, patch), target);
      console.log(`written ${shown(target)}`);
    }
    for (const gone of before) {
      rmSync(join(patchDir, gone));
      console.log(`removed ${shown(join(patchDir, gone))}`);
    }
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

/** Refuses to add to an open repository that is not the series in tools/ferretdb/patch (work not exported, say). */
export function requireInSync() {
  const fresh = mkdtempSync(join(toolsDir, 'ferretdb-export-'));
  try {
    formatPatches(fresh);
    if (!sameSeries(fresh, patchDir))
      throw new Error(`${shown(forkDir)} is not the series in ${shown(patchDir)}: export it first, or open --force to discard it`);
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
export function check(from = '0000') {
  const started = performance.now();
  initPristine(checkDir);
  const modFile = wrapperModFile('ferretdb-check', checkDir);
  const hint = `see ${shown(join(projectRoot, 'tools/ferretdb/README.md'))} (Carrying the fork)`;
  for (const patch of seriesPatches()) {
    const step = performance.now();
    am(checkDir, patch);
    if (numberOf(patch) < from) continue;
    runGo(go(), ['build', `-modfile=${modFile}`, '-o', '/dev/null', '.'], `${patch}: building the wrapper`, hint);
    const packages = packagesOf(checkDir, pathsOf(join(patchDir, patch)));
    if (packages.length) runGo(go(), ['vet', `-modfile=${modFile}`, ...packages], `${patch}: go vet (its packages and their tests)`, hint);
    console.log(`${patch}: applies, builds, ${packages.length} packages vetted (${((performance.now() - step) / 1000).toFixed(1)} s)`);
  }
  console.log(`The series checked in ${((performance.now() - started) / 1000).toFixed(0)} s.`);
}

/** Builds the series without the given changes (numbers or names) into .tools/bin, for measuring one against the rest. */
export function buildWithout(excluded: string[], output?: string) {
  const patches = seriesPatches();
  const left = excluded.map((name) => {
    const patch = patches.find((p) => p === name || numberOf(p) === name.padStart(4, '0'));
    if (!patch) throw new Error(`No patch ${name} in ${shown(patchDir)}`);
    return patch;
  });
  copyPristineModule(go(), variantDir);
  for (const patch of patches.filter((p) => !left.includes(p))) {
    try {
      applyPatch(variantDir, join(patchDir, patch));
    } catch (error) {
      throw new Error(`Without ${left.join(', ')}: ${(error as Error).message} (it builds on what is left out: leave it out too)`);
    }
  }
  const binary = resolve(output ?? join(toolsDir, 'bin', `ferretdb-without-${left.map(numberOf).join('-')}`));
  runGo(go(), ['build', `-modfile=${wrapperModFile('ferretdb-variant', variantDir)}`, '-o', binary, '.'], 'Building FerretDB', 'see above');
  console.log(`${binary}: the series without ${left.join(', ')}. Run a bench on it with FERRETDB_BIN=${binary}.`);
}

/**
 * Builds the open repository's files as they are (a commit that switches a change off, say, for measuring one
 * that later patches build on) into .tools/bin.
 */
export function buildOpen(output?: string) {
  if (!existsSync(join(forkDir, '.git'))) throw new Error(`Nothing is open at ${shown(forkDir)}: open it first (open)`);
  const binary = resolve(output ?? join(toolsDir, 'bin', 'ferretdb-open'));
  runGo(go(), ['build', `-modfile=${wrapperModFile('ferretdb-open', forkDir)}`, '-o', binary, '.'], 'Building FerretDB', 'see above');
  console.log(`${binary}: ${shown(forkDir)} as it is. Run a bench on it with FERRETDB_BIN=${binary}.`);
}
