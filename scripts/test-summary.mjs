// Prints the one-line summary CI reads ("N passed, N failed[, N skipped]") from vitest's JSON report.
import { existsSync, readFileSync } from 'node:fs';

const path = process.argv[2] ?? 'test-results/vitest.json';
if (!existsSync(path)) {
  console.log('0 passed, 1 failed');
  console.error(`no test report at ${path}: the test runner did not finish`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(path, 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
// A suite that failed to load counts as a failure even though none of its tests ran.
const failedSuites = (report.testResults ?? []).filter(
  (r) => r.status === 'failed' && (r.assertionResults ?? []).length === 0,
).length;
const failed = (report.numFailedTests ?? 0) + failedSuites;
console.log(`${report.numPassedTests ?? 0} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
