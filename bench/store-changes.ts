/**
 * What each speed-only change of the FerretDB fork (tools/ferretdb/README.md) still buys: the store's CPU for
 * the service's lead work, on the series as built (the floor of this run) and on builds with one change left out
 * or switched off, in the same run.
 *
 *   npm run -s ferretdb:fork -- build --without 8          # .tools/bin/ferretdb-without-0008
 *   BENCH_ROUNDS=3 npm run bench:store-changes            # every .tools/bin/ferretdb-without-* and ferretdb-off-*
 *   STORE_VARIANTS=/path/a,/path/b npm run bench:store-changes
 *
 * Each round runs every build on a fresh data folder, in a rotating order: 5,000 leads imported through the
 * import service (500 a call), the lead list (plain, by status, by search) paged through, 500 leads read and 500
 * updated one by one, 20 bulk status changes of 200 leads. The figure is the FerretDB process's CPU time (user and
 * system, from /proc) for each phase, the median over rounds; a build's figure beside the series' says what the
 * change left out saves. CPU time rather than wall time, so that other work on the machine moves it less.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { connectDatabase, disconnectDatabase } from '../src/db/connection.ts';
import { startEmbeddedFerretDb } from '../src/db/embedded-ferretdb.ts';
import { bulkUpdateLeads, getLead, listLeads, updateLead } from '../src/leads/leads.service.ts';
import { setLogLevel } from '../src/logger.ts';
import { createWorkspace } from '../src/account/account.service.ts';
import { cpuMsOf } from './support-process.ts';
import { median, searchTerm, seedLeads } from './support-store.ts';

const binDir = new URL('../.tools/bin/', import.meta.url).pathname;
const series = join(binDir, 'ferretdb');
const variants =
  process.env.STORE_VARIANTS?.split(',').filter(Boolean) ??
  readdirSync(binDir)
    .filter((name) => /^ferretdb-(without|off)-/.test(name))
    .sort()
    .map((name) => join(binDir, name));
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const leadCount = 5000;
const builds = [series, ...variants];
const phases = ['import', 'lists', 'reads', 'updates', 'bulk updates'] as const;
type Phase = (typeof phases)[number];

setLogLevel('warn');

/** One pass of the workload on a fresh folder with the given FerretDB binary: CPU ms of FerretDB per phase. */
async function run(binary: string): Promise<Record<Phase, number>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadops-bench-store-changes-'));
  const store = await startEmbeddedFerretDb({ dataDir, binary, log: () => {} });
  const pid = (JSON.parse(readFileSync(join(dataDir, 'ferretdb.json'), 'utf8')) as { pid: number }).pid;
  const cpu = {} as Record<Phase, number>;
  const phase = async (name: Phase, work: () => Promise<unknown>) => {
    const before = cpuMsOf(pid);
    await work();
    cpu[name] = cpuMsOf(pid) - before;
  };
  try {
    await connectDatabase(store.uri);
    const { workspaceId } = await createWorkspace({ name: 'Changes', plan: 'business', email: 'changes@example.test' });
    const principal = { workspaceId, brandId: null };
    const ids: string[] = [];
    await phase('import', () => seedLeads(workspaceId, 0, leadCount));
    await phase('lists', async () => {
      for (let offset = 0; offset < leadCount; offset += 500) {
        const page = await listLeads(principal, { limit: 500, offset });
        ids.push(...page.leads.map((lead) => lead.id));
      }
      for (let i = 0; i < 20; i++) {
        await listLeads(principal, { status: 'new', limit: 100, offset: i * 100 });
        await listLeads(principal, { q: searchTerm, limit: 100, offset: 0 });
      }
    });
    if (ids.length !== leadCount) throw new Error(`listed ${ids.length} of ${leadCount} leads`);
    await phase('reads', async () => {
      for (let i = 0; i < 500; i++) await getLead(workspaceId, ids[(i * 7919) % leadCount]!);
    });
    await phase('updates', async () => {
      for (let i = 0; i < 500; i++)
        await updateLead(workspaceId, { id: ids[(i * 104729) % leadCount]!, status: i % 2 ? 'contacted' : 'new' });
    });
    await phase('bulk updates', async () => {
      for (let i = 0; i < 20; i++) {
        const chunk = ids.slice((i * 200) % leadCount, ((i * 200) % leadCount) + 200);
        await bulkUpdateLeads(workspaceId, { ids: chunk, status: i % 2 ? 'new' : 'qualified' });
      }
    });
    return cpu;
  } finally {
    await disconnectDatabase();
    await store.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const samples = new Map(builds.map((build) => [build, [] as Array<Record<Phase, number>>]));
for (let round = 0; round < rounds; round++) {
  const order = builds.map((_, i) => builds[(i + round) % builds.length]!);
  for (const build of order) samples.get(build)!.push(await run(build));
  console.log(`round ${round + 1} of ${rounds} done`);
}

const medianOf = (build: string, name: Phase) => median(samples.get(build)!.map((sample) => sample[name]));
const totalOf = (build: string) => phases.reduce((sum, name) => sum + medianOf(build, name), 0);
const spreadOf = (build: string) => {
  const totals = samples.get(build)!.map((sample) => phases.reduce((sum, name) => sum + sample[name], 0));
  return (Math.max(...totals) - Math.min(...totals)) / median(totals);
};
const label = (build: string) => (build === series ? 'the series (floor)' : basename(build).replace(/^ferretdb-/, ''));

console.log(`\nFerretDB CPU ms per phase, median of ${rounds} rounds; ${leadCount} leads; ratio to the series beside each`);
console.log(['build'.padEnd(22), ...phases.map((name) => name.padStart(18)), 'total'.padStart(18), 'spread'.padStart(8)].join(''));
for (const build of builds) {
  const cell = (value: number, floor: number) =>
    `${value.toFixed(0)} ms${build === series ? '' : ` ${(value / floor).toFixed(2)}×`}`.padStart(18);
  console.log(
    [
      label(build).padEnd(22),
      ...phases.map((name) => cell(medianOf(build, name), medianOf(series, name))),
      cell(totalOf(build), totalOf(series)),
      `${(spreadOf(build) * 100).toFixed(0)}%`.padStart(8),
    ].join(''),
  );
}
console.log("spread: the range of a build's totals over rounds, against their median; a ratio inside it is noise");
