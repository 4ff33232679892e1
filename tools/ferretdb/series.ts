/**
 * The fork's series of patches (tools/ferretdb/README.md): where things are, the pristine module, applying the
 * patches, and running go in the wrapper's module. Used by the build (build.ts) and by the maintainer's tool (fork.ts).
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = resolve(fileURLToPath(import.meta.url), '../../..');
export const sourceDir = join(projectRoot, 'tools', 'ferretdb');
export const wrapperDir = join(sourceDir, 'wrapper');
/**
 * The series, `NNNN-name.patch`; beside it, changes that arrive as loose diffs (`NN-name.diff`, made against the
 * series' final tree) until `fork.ts import` makes them patches of it.
 */
export const patchDir = join(sourceDir, 'patch');
export const toolsDir = join(projectRoot, '.tools');
export const ferretDbModule = 'github.com/FerretDB/FerretDB@v1.24.2';
export const ferretDbImportPath = 'github.com/FerretDB/FerretDB';

/** A project path as the README and messages name it. */
export const shown = (path: string) => relative(projectRoot, path);

const onPath = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
export const goCommand = () => onPath('go') || (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : '');

export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => statSync(join(dir, file)).isFile())
    .sort();
}

/** The series' patches in order: `NNNN-name.patch`, so their names sort as their numbers. */
export function seriesPatches(dir = patchDir): string[] {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir).filter((file) => file.endsWith('.patch'));
  const odd = names.find((name) => !/^\d{4}-[\w.-]+\.patch$/.test(name));
  if (odd) throw new Error(`${shown(join(dir, odd))} is not named NNNN-name.patch`);
  return names.sort();
}

/** The loose diffs in dir, in the order of their numbers (as text, 10 would come before 2). */
export function looseDiffs(dir = patchDir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.diff'))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
}

/** The paths a patch or diff changes, as `diff --git a/<path> b/<path>` names them (both sides of a rename). */
export function pathsOf(patchFile: string): string[] {
  const paths = new Set<string>();
  for (const [, a, b] of readFileSync(patchFile, 'utf8').matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
    paths.add(a!).add(b!);
  }
  return [...paths];
}

/** The Go packages of a module tree (import paths) holding the given paths: a package is a folder with `.go` files. */
export function packagesOf(moduleDir: string, paths: string[]): string[] {
  const dirs = new Set(paths.map((path) => dirname(path)));
  return [...dirs]
    .filter((dir) => existsSync(join(moduleDir, dir)) && readdirSync(join(moduleDir, dir)).some((file) => file.endsWith('.go')))
    .sort()
    .map((dir) => (dir === '.' ? ferretDbImportPath : `${ferretDbImportPath}/${dir}`));
}

/** Runs a command, failing with `what` and its error output; its standard output. */
export function runOrThrow(command: string, args: string[], what: string, options: SpawnSyncOptions = {}): string {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (result.status !== 0) {
    const detail = `${result.stderr ?? ''}`.trim() || `${result.stdout ?? ''}`.trim();
    throw new Error(`${what} failed (${command} exited ${result.status})${detail ? `: ${detail}` : ''}`);
  }
  return `${result.stdout ?? ''}`;
}

const useMongoDb = 'set MONGODB_URI to use an existing MongoDB instead.';

/** Runs go in the wrapper's module (downloading what go.mod names); go's messages go to this process's stderr. */
export function runGo(go: string, args: string[], what: string, hint = useMongoDb): string {
  const result = spawnSync(go, args, {
    cwd: wrapperDir,
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`${what} failed (go exited ${result.status}); ${hint}`);
  return result.stdout;
}

/** Copies the pinned FerretDB module, as published, out of Go's module cache into dir (replacing what was there). */
export function copyPristineModule(go: string, dir: string) {
  const { Dir: pristine } = JSON.parse(runGo(go, ['mod', 'download', '-json', ferretDbModule], 'Downloading FerretDB')) as { Dir: string };
  rmSync(dir, { recursive: true, force: true });
  cpSync(pristine, dir, { recursive: true });
  // The module cache is read-only.
  chmodSync(dir, 0o755);
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    chmodSync(join(dir, file), statSync(join(dir, file)).isDirectory() ? 0o755 : 0o644);
  }
}

/** Applies one patch or diff to the module tree in dir, which is no git repository: `git apply` patches the files under it. */
export function applyPatch(dir: string, patchFile: string) {
  // The ceiling keeps git from finding this project's repository above dir.
  const applied = spawnSync('git', ['apply', '--whitespace=nowarn', patchFile], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(dir) },
  });
  if (applied.status !== 0) throw new Error(`Applying ${shown(patchFile)} failed: ${applied.stderr.trim()}`);
}

/** Refuses a build while a change is still a loose diff: it must join the series first, by one command. */
export function refuseLooseDiffs() {
  const diffs = looseDiffs();
  if (diffs.length === 0) return;
  const paths = diffs.map((diff) => shown(join(patchDir, diff))).join(' ');
  throw new Error(
    `${paths}: not part of the FerretDB series yet. Make them patches of it with \`npm run -s ferretdb:fork -- import ${paths}\` (tools/ferretdb/README.md).`,
  );
}

/**
 * A copy of the wrapper's go.mod (and go.sum beside it) in .tools, for `go -modfile`: the wrapper's files stay as
 * they are (they decide when FerretDB is rebuilt) whatever go writes. `replace` points the module at moduleDir
 * instead of the patched copy the build makes; null drops it (FerretDB as published).
 */
export function wrapperModFile(name: string, replace?: string | null): string {
  let goMod = readFileSync(join(wrapperDir, 'go.mod'), 'utf8');
  if (replace === null) goMod = goMod.replace(/^replace .*$/m, '');
  else if (replace) goMod = goMod.replace(/^replace .*$/m, `replace github.com/FerretDB/FerretDB => ${replace}`);
  const modFile = join(toolsDir, `${name}.mod`);
  mkdirSync(toolsDir, { recursive: true });
  writeFileSync(modFile, goMod);
  writeFileSync(join(toolsDir, `${name}.sum`), readFileSync(join(wrapperDir, 'go.sum')));
  return modFile;
}
