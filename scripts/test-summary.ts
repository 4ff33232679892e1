/**
 * Prints vitest's JSON reports as the plain closing line CI reads: "Tests: N passed, N failed, N skipped",
 * summed over every report given (CI runs the suite twice), after one line per report.
 */
import { existsSync, readFileSync } from 'node:fs';

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

const totals = { passed: 0, failed: 0, skipped: 0 };
for (const file of process.argv.slice(2)) {
  // A run that crashed before reporting counts as a failure.
  const report: Report = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { numPassedTests: 0, numFailedTests: 1, numPendingTests: 0, numTodoTests: 0 };
  const run = { passed: report.numPassedTests, failed: report.numFailedTests, skipped: report.numPendingTests + report.numTodoTests };
  console.log(`${file}: ${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped`);
  totals.passed += run.passed;
  totals.failed += run.failed;
  totals.skipped += run.skipped;
}
console.log(`Tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
