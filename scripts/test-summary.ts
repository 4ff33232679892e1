/** Prints vitest's JSON report as the plain closing line CI reads: "Tests: N passed, N failed, N skipped". */
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
};
console.log(`Tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped`);
