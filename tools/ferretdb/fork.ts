/** The maintainer's tool for the FerretDB fork: `npm run -s ferretdb:fork -- <command>` (tools/ferretdb/README.md). */
import { parseArgs } from 'node:util';
import { importDiffs } from './import.ts';
import { buildOpen, buildWithout, check, exportSeries, open } from './repo.ts';

const usage = `npm run -s ferretdb:fork -- <command>
  open [--force]          the series as a git repository in .tools/ferretdb-fork (FerretDB as published, a commit per patch)
  export                  that repository's commits back to tools/ferretdb/patch
  check [--from NNNN]     every patch applies on the one before and builds on its own (from NNNN on, if given)
  build --without NNNN    a binary of the series without that change (repeat --without to leave out more), -o <path>
  build --open            a binary of the open repository's files as they are, -o <path>
  import <diff>...        loose diffs (tools/ferretdb/patch/NN-name.diff) made the next patches of the series`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    force: { type: 'boolean', default: false },
    from: { type: 'string' },
    without: { type: 'string', multiple: true, default: [] },
    open: { type: 'boolean', default: false },
    output: { type: 'string', short: 'o' },
  },
});
const [command, ...rest] = positionals;
try {
  if (command === 'open') open(values.force);
  else if (command === 'export') exportSeries();
  else if (command === 'check') check(values.from?.padStart(4, '0'));
  else if (command === 'build' && values.without.length) buildWithout(values.without, values.output);
  else if (command === 'build' && values.open) buildOpen(values.output);
  else if (command === 'import') importDiffs(rest);
  else {
    console.error(usage);
    process.exitCode = 2;
  }
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
}
