import { describe, expect, it } from 'vitest';
import { unreportedFiles } from '../../scripts/test-report.mjs';

const passed = (name: string) => ({ name, status: 'passed', assertionResults: [{ status: 'passed' }] });

describe('npm test: files that did not report', () => {
  it('names a file vitest was asked to run that is missing from the report (its worker aborted)', () => {
    const expected = new Set(['/r/test/a.test.ts', '/r/test/b.test.ts', '/r/test/c.test.ts']);
    const { missing, broken } = unreportedFiles(expected, [passed('/r/test/a.test.ts'), passed('/r/test/c.test.ts')]);
    expect(missing).toEqual(['/r/test/b.test.ts']);
    expect(broken).toEqual([]);
  });

  it('names a file reported failed without any failed test (it did not load), not one with a failed test', () => {
    const expected = new Set(['/r/test/a.test.ts', '/r/test/b.test.ts']);
    const { missing, broken } = unreportedFiles(expected, [
      { name: '/r/test/a.test.ts', status: 'failed', assertionResults: [] },
      { name: '/r/test/b.test.ts', status: 'failed', assertionResults: [{ status: 'passed' }, { status: 'failed' }] },
    ]);
    expect(missing).toEqual([]);
    expect(broken).toEqual(['/r/test/a.test.ts']);
  });
});
