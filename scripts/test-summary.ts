/**
 * Prints vitest's JSON reports as the plain closing line CI reads: "Tests: N passed, N failed, N skipped",
 * summed over every report given, after one line per report. A run can fail with
 * every test passed (a hook that threw, an error no test caught): those files and the run are named too.
 */
import { existsSync, readFileSync } from 'node:fs';

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  success?: boolean;
  testResults?: { name: string; status: string; message?: string }[];
}

const totals = { passed: 0, failed: 0, skipped: 0 };
for (const file of process.argv.slice(2)) {
  // A run that crashed before reporting counts as a failure.
  const report: Report = existsSync(file)
    ? JSON.parse(readFileSync(file, 'utf8'))
    : { numPassedTests: 0, numFailedTests: 1, numPendingTests: 0, numTodoTests: 0 };
  const run = { passed: report.numPassedTests, failed: report.numFailedTests, skipped: report.numPendingTests + report.numTodoTests };
  console.log(`${file}: ${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped`);
  for (const result of report.testResults ?? [])
    if (result.status === 'failed' && result.message) console.log(`  ${result.name}: ${result.message.split('\n')[0]}`);
  if (report.success === false && run.failed === 0)
    console.log('  the run failed outside any test (a hook or an uncaught error: see its output above)');
  totals.passed += run.passed;
  totals.failed += run.failed;
  totals.skipped += run.skipped;
}
console.log(`Tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
