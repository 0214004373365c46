/*
 * The js tier's summary line from vitest's JSON report and exit code
 * (tests/run.sh):
 *
 *   node tests/js/summary.mjs .cache/vitest.json <vitest exit code>
 *
 * failed = failing tests + test files that failed without a failing test
 * (threw at import, a hook threw, the worker crashed); a run that vitest
 * failed with neither (no test files, an unhandled error: the report then
 * says success or not, the exit code does), or no report at all, counts
 * one failure. (numFailedTestSuites is no count of files: it includes
 * every describe block around a failing test.)
 */
import { readFileSync } from 'node:fs';

const exit = Number(process.argv[3] ?? 0);
let r;
try {
	r = JSON.parse(readFileSync(process.argv[2], 'utf8'));
}
catch (e) {
	console.log(`not ok - js: no vitest report (${e.message})`);
	console.log('js: 0 passed, 1 failed, 0 skipped');
	process.exit(1);
}

const broken = r.testResults.filter(f => f.status === 'failed' && !f.assertionResults.some(a => a.status === 'failed'));
for (const f of broken)
	console.log(`not ok - js: ${f.name} failed outside its tests: ${f.message}`);

let failed = r.numFailedTests + broken.length;
if (failed === 0 && (!r.success || exit !== 0)) {
	console.log(`not ok - js: vitest failed the run (exit ${exit}) without a failing test: no test files, or an unhandled error`);
	failed = 1;
}
console.log(`js: ${r.numPassedTests} passed, ${failed} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
process.exitCode = failed ? 1 : 0;
