import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * No runtime import cycle in src/ or web/src/: a module in a cycle can be read while half initialised
 * (an exported const still undefined), which fails only for some entry points and load orders. Imports of
 * types only (`import type`, `export type ... from`) vanish at build time and are allowed to loop.
 */

const ROOT = path.resolve(__dirname, '../..');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return files(full);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

// import x from './a.js'; import { a, type B } from './a.js'; export { a } from './a.js'; export * from './a.js'; import './a.js'
// The clause is names, braces, commas and `* as x` only, so `export const x = f<import('./a.js').T>()` (a
// type position) is not read as an import.
const IMPORT = /^\s*(?:import|export)\s+(?!type\s)([\w\s{},*$]*?)\s*(?:from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The relative modules a file loads at run time (type-only specifier lists excluded). */
export function runtimeImports(file: string, source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const clause = m[1].trim();
    // `import { type A, type B } from` loads nothing at run time (verbatim module syntax aside).
    const named = /^\{([^}]*)\}$/.exec(clause);
    if (named && named[1].split(',').every((s) => !s.trim() || /^type\s/.test(s.trim()))) continue;
    const target = path.resolve(path.dirname(file), m[2]).replace(/\.js$/, '');
    for (const candidate of [`${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts')]) {
      if (fs.existsSync(candidate)) {
        out.push(candidate);
        break;
      }
    }
  }
  return out;
}

/** Every cycle of the graph, each once, as the list of its files from its smallest name. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        const loop = stack.slice(stack.indexOf(next));
        const start = loop.indexOf([...loop].sort()[0]);
        const canonical = [...loop.slice(start), ...loop.slice(0, start)];
        found.set(canonical.join(' -> '), canonical);
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return [...found.values()];
}

describe('import cycles', () => {
  it('src/ and web/src/ load no module through a runtime cycle', () => {
    const all = [...files(path.join(ROOT, 'src')), ...files(path.join(ROOT, 'web/src'))];
    const graph = new Map(all.map((f) => [f, runtimeImports(f, fs.readFileSync(f, 'utf8'))]));
    const found = cycles(graph).map((c) => c.map((f) => path.relative(ROOT, f)).join(' -> '));
    expect(found).toEqual([]);
  });

  it('finds a cycle through value imports and ignores one through type imports', () => {
    const dir = fs.mkdtempSync(path.join(ROOT, 'node_modules/.cycle-check-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = b;\n");
      fs.writeFileSync(path.join(dir, 'b.ts'), "import { c } from './c.js';\nexport const b = c;\n");
      fs.writeFileSync(
        path.join(dir, 'c.ts'),
        "import { a } from './a.js';\nimport type { T } from './t.js';\nexport const c = 1;\n",
      );
      fs.writeFileSync(path.join(dir, 't.ts'), "import { type C } from './c.js';\nexport type T = C;\n");
      const names = ['a', 'b', 'c', 't'].map((n) => path.join(dir, `${n}.ts`));
      const graph = new Map(names.map((f) => [f, runtimeImports(f, fs.readFileSync(f, 'utf8'))]));
      expect(cycles(graph).map((c) => c.map((f) => path.basename(f)))).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
