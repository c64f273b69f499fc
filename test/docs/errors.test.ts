import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS_PAGE, renderErrorsPage } from '../../scripts/errors-doc.js';
import { ERROR_CODES, PLATFORM_ERROR_CODES } from '../../src/error-codes.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CATALOGUE = path.join(ROOT, 'src/error-codes.ts');

/** Herald's own sources: the simulators answer in each platform's shapes, not in Herald's envelope. */
function heraldSources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (full !== path.join(ROOT, 'src/sandbox')) walk(full);
      } else if (e.name.endsWith('.ts') && full !== CATALOGUE) out.push(full);
    }
  };
  walk(path.join(ROOT, 'src'));
  return out;
}

/** String-literal `code`s of object literals that are error answers: with an `error` or a `status` beside. */
function answeredCodes(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const codes: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      const props = new Map<string, ts.Expression>();
      for (const p of node.properties) {
        if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) {
          props.set(p.name.text, p.initializer);
        }
      }
      const code = props.get('code');
      if (code && ts.isStringLiteral(code) && (props.has('error') || props.has('status'))) codes.push(code.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return codes;
}

describe('the error-code catalogue', () => {
  const sources = heraldSources();

  it('docs/errors.md is the page generated from it (npm run docs:errors)', () => {
    expect(fs.readFileSync(ERRORS_PAGE, 'utf8')).toBe(renderErrorsPage());
  });

  it('holds every code an answer object in src/ spells out', () => {
    const answered = new Set(sources.flatMap(answeredCodes));
    expect(answered.size).toBeGreaterThan(20);
    expect([...answered].filter((code) => !Object.hasOwn(ERROR_CODES, code))).toEqual([]);
  });

  it('holds no code that nothing answers', () => {
    const text = sources.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const unused = Object.keys(ERROR_CODES).filter((code) => !new RegExp(`['"\`]${code}['"\`]`).test(text));
    expect(unused).toEqual([]);
    const unusedTemplates = Object.keys(PLATFORM_ERROR_CODES).filter((code) => {
      const [head, tail] = code.split('{platform}');
      return !text.includes(`\`${head}\${`) || !text.includes(`}${tail}\``);
    });
    expect(unusedTemplates).toEqual([]);
  });

  it('gives every code a status and a meaning', () => {
    for (const [code, entry] of Object.entries({ ...ERROR_CODES, ...PLATFORM_ERROR_CODES })) {
      expect(entry.statuses.length, code).toBeGreaterThan(0);
      expect(entry.summary.length, code).toBeGreaterThan(10);
    }
  });
});

describe('the OpenAPI document', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('lists every code in its ErrorCode schema, with its statuses', async () => {
    const doc = await env.request(null, 'GET', '/v1/openapi.json');
    expect(doc.status).toBe(200);
    const schema = doc.body.components.schemas.ErrorCode;
    expect(schema.enum.sort()).toEqual(Object.keys(ERROR_CODES).sort());
    const listed = schema['x-error-codes'];
    expect(Object.keys(listed).sort()).toEqual(Object.keys({ ...ERROR_CODES, ...PLATFORM_ERROR_CODES }).sort());
    expect(listed.post_not_found).toEqual({ statuses: [404], summary: 'Post not found' });
  }, 120_000); // the document is built on its first request, slowly on a loaded machine

  it('answers a code of the catalogue on a refused request', async () => {
    const res = await env.request(null, 'GET', '/v1/profiles');
    expect(res.status).toBe(401);
    expect(Object.hasOwn(ERROR_CODES, res.body.code)).toBe(true);
  });
});
