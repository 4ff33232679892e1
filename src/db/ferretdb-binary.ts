import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = resolve(fileURLToPath(import.meta.url), '../../..');
const wrapperDir = join(projectRoot, 'tools', 'ferretdb');
const localBinary = join(projectRoot, '.tools', 'bin', 'ferretdb');
/** The wrapper sources the local binary was built from, so a changed wrapper is rebuilt. */
const builtFromFile = `${localBinary}.source-sha256`;

const onPath = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();

function wrapperSourceHash(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(wrapperDir).filter((f) => /\.go$|^go\.(mod|sum)$/.test(f)).sort()) {
    hash.update(file).update(readFileSync(join(wrapperDir, file)));
  }
  return hash.digest('hex');
}

const localBinaryIsCurrent = (sourceHash: string) =>
  existsSync(localBinary) && existsSync(builtFromFile) && readFileSync(builtFromFile, 'utf8') === sourceHash;

/**
 * Finds the FerretDB binary, building it on first use (and again when the
 * wrapper changes). FerretDB 1.24 is built from the Go module proxy through
 * the small wrapper in tools/ferretdb (the upstream command refuses to run
 * outside its own repo; the wrapper also adds the _id lookup index).
 */
export function ensureFerretDbBinary(log: (line: string) => void, explicit?: string): string {
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`FERRETDB_BIN points at ${explicit}, which does not exist`);
    return explicit;
  }
  const sourceHash = wrapperSourceHash();
  if (localBinaryIsCurrent(sourceHash)) return localBinary;
  const go = onPath('go') || (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : '');
  if (!go) {
    if (existsSync(localBinary)) return localBinary;
    const found = onPath('ferretdb');
    if (found) return found;
    throw new Error(
      'No database configured: set MONGODB_URI to a MongoDB 6+ server, or install Go (>= 1.24) so the embedded FerretDB can be built, or set FERRETDB_BIN.',
    );
  }
  log('Building the embedded FerretDB 1.24 from the Go module proxy (first run only, about a minute)...');
  mkdirSync(join(projectRoot, '.tools', 'bin'), { recursive: true });
  const build = spawnSync(go, ['build', '-o', localBinary, '.'], {
    cwd: wrapperDir,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, GOFLAGS: '-mod=mod' },
  });
  if (build.status !== 0 || !existsSync(localBinary)) {
    throw new Error(`Building FerretDB failed (go build exited ${build.status}); set MONGODB_URI to use an existing MongoDB instead.`);
  }
  writeFileSync(builtFromFile, sourceHash);
  log(`FerretDB built at ${localBinary}`);
  return localBinary;
}
