// Which test files of a vitest run did not report (scripts/test.mjs): kept apart so a test can import it.

/** Files expected but absent from the report, and files reported failed with no failed test (not loaded). */
export function unreportedFiles(expected, testResults) {
  const reported = new Map(testResults.map((r) => [r.name, r]));
  const missing = [...expected].filter((f) => !reported.has(f));
  const broken = testResults
    .filter((r) => r.status === 'failed' && !r.assertionResults.some((a) => a.status === 'failed'))
    .map((r) => r.name);
  return { missing, broken };
}
