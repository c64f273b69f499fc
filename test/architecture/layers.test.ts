import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/* Layering: `src/store` alone runs SQL; the domain does not reach into the job runner. */

const SRC = path.resolve(__dirname, '../../src');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return files(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

const rel = (f: string) => path.relative(SRC, f).split(path.sep).join('/');
const QUERY =
  /\.(selectFrom|updateTable|insertInto|deleteFrom|replaceInto|mergeInto)\(|\bsql`|\.transaction\(\)\.execute|^import (?!type )[^;]*from 'kysely'/m;

describe('layers', () => {
  it('only src/store builds Kysely queries', () => {
    const offenders = files(SRC)
      .filter((f) => !rel(f).startsWith('store/') && !rel(f).startsWith('sandbox/'))
      .filter((f) => QUERY.test(fs.readFileSync(f, 'utf8')))
      .map(rel);
    expect(offenders).toEqual([]);
  });

  it('the domain imports nothing from jobs/', () => {
    const offenders = files(path.join(SRC, 'domain'))
      .filter((f) => /from '(\.\.\/)+jobs\//.test(fs.readFileSync(f, 'utf8')))
      .map(rel);
    expect(offenders).toEqual([]);
  });
});
