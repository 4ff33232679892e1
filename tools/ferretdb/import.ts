/**
 * Loose diffs made patches of the series: a change made as a diff against the series' final tree
 * (tools/ferretdb/patch/NN-name.diff, added files included) becomes the next commit of the open repository,
 * exported and checked, in one command.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { check, exportSeries, forkDir, git, go, open, requireInSync } from './repo.ts';
import {
  applyPatch,
  copyPristineModule,
  filesUnder,
  looseDiffs,
  projectRoot,
  runOrThrow,
  seriesPatches,
  shown,
  toolsDir,
} from './series.ts';

const inProject = (args: string[]) => spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });

/** The author of a loose diff: whoever committed it to the project last, else the project's git user. */
function authorOf(diff: string): Record<string, string> {
  const [name, email, date] = inProject(['log', '-1', '--format=%an%x00%ae%x00%aI', '--', diff]).stdout.trim().split('\0');
  if (name && email && date) return { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_AUTHOR_DATE: date };
  const user = (key: string) => inProject(['config', key]).stdout.trim();
  return { GIT_AUTHOR_NAME: user('user.name') || 'leadops', GIT_AUTHOR_EMAIL: user('user.email') || 'leadops@localhost' };
}

/** The project's commit whose series a diff was made against: the parent of the commit that added it, else HEAD. */
function baseOf(diff: string): string {
  const added = inProject(['log', '--diff-filter=A', '-1', '--format=%H', '--', diff]).stdout.trim();
  return added ? `${added}^` : 'HEAD';
}

/**
 * Builds the module tree the series at a project commit made, into dir: its patches, then its loose diffs (one may
 * have been made on another not yet imported), then the files of the layout before the series (patch/files).
 */
function seriesTreeAt(rev: string, dir: string) {
  const source = mkdtempSync(join(toolsDir, 'ferretdb-source-'));
  try {
    const archive = inProject(['archive', '--format=tar', rev, 'tools/ferretdb']);
    if (archive.status !== 0) throw new Error(`git archive ${rev} tools/ferretdb failed: ${archive.stderr.trim()}`);
    runOrThrow('tar', ['-x', '-C', source], 'Unpacking tools/ferretdb', { input: archive.stdout, stdio: ['pipe', 'pipe', 'pipe'] });
    const patches = join(source, 'tools/ferretdb/patch');
    copyPristineModule(go(), dir);
    for (const patch of [...seriesPatches(patches), ...looseDiffs(patches)]) applyPatch(dir, join(patches, patch));
    const files = join(patches, 'files');
    if (!existsSync(files)) return;
    for (const file of filesUnder(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      cpSync(join(files, file), join(dir, file));
    }
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
}

/**
 * Stores in the open repository the files of the tree a diff was made against, so that `git apply --3way` finds
 * the versions it changed (its `index` lines name them) and merges the diff into what the series holds now.
 */
function storeBaseOf(diff: string) {
  const tree = mkdtempSync(join(toolsDir, 'ferretdb-base-'));
  try {
    seriesTreeAt(baseOf(diff), tree);
    const paths = filesUnder(tree).map((file) => join(tree, file));
    git(forkDir, ['hash-object', '-w', '--no-filters', '--stdin-paths'], 'git hash-object', {}, paths.join('\n'));
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

/** Applies a diff to the open repository's index and files: as it is, else merged three ways. */
function applyDiff(diff: string, subject: string) {
  try {
    git(forkDir, ['apply', '--index', '--whitespace=nowarn', diff], 'git apply');
    return;
  } catch {
    // The series changed what the diff changes since it was made.
  }
  storeBaseOf(diff);
  try {
    git(forkDir, ['apply', '--index', '--3way', '--whitespace=nowarn', diff], 'git apply --3way');
  } catch (error) {
    const conflicted = git(forkDir, ['diff', '--name-only', '--diff-filter=U'], 'git diff').trim();
    if (!conflicted) throw new Error(`${shown(diff)} does not apply on the series: ${(error as Error).message}`);
    throw new Error(
      `${shown(diff)} conflicts with the series in ${conflicted.split('\n').join(', ')}: resolve the conflicts marked in ` +
        `${shown(forkDir)}, then \`git add\` the files and \`git commit -m "${subject}"\` there.`,
    );
  }
}

/**
 * Makes loose diffs the next patches of the series, in the order of their numbers: each a commit on the open
 * repository (opened first if need be), exported, checked (from the first new one on), and the diff removed.
 */
export function importDiffs(files: string[]) {
  if (!files.length) throw new Error('import: name the diffs, e.g. tools/ferretdb/patch/20-name.diff');
  const diffs = files.map((file) => resolve(file)).sort((a, b) => parseInt(basename(a), 10) - parseInt(basename(b), 10));
  if (existsSync(forkDir)) requireInSync();
  else open(false);
  const first = String(seriesPatches().length + 1).padStart(4, '0');
  for (const [i, diff] of diffs.entries()) {
    const subject = basename(diff, '.diff').replace(/^\d+-/, '').replace(/-/g, ' ');
    try {
      applyDiff(diff, subject);
    } catch (error) {
      const fork = 'npm run -s ferretdb:fork --';
      const rest = diffs.slice(i + 1).map(shown);
      throw new Error(
        `${(error as Error).message}\nThen: ${fork} export && ${fork} check --from ${first} && ` +
          `rm ${diffs
            .slice(0, i + 1)
            .map(shown)
            .join(' ')}${rest.length ? ` && ${fork} import ${rest.join(' ')}` : ''}`,
      );
    }
    const body = `From ${shown(diff)}; what it changes and why: tools/ferretdb/README.md.`;
    try {
      git(forkDir, ['commit', '-q', '-m', subject, '-m', body], 'git commit', authorOf(diff));
    } catch (error) {
      git(forkDir, ['reset', '-q', '--hard'], 'git reset');
      throw error;
    }
  }
  exportSeries();
  check(first);
  for (const diff of diffs) rmSync(diff);
  console.log(`Patches from ${first} on made from ${diffs.map(shown).join(', ')}: give each its what and why in tools/ferretdb/README.md.`);
}
