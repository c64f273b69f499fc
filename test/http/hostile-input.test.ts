import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, PLATFORM_ERROR_CODES } from '../../src/error-codes.js';
import { PLATFORMS } from '../../src/platforms/catalogue.js';
import { allSimulators } from '../../src/sandbox/index.js';
import { dialect, type TestEnv } from '../helpers/context.js';
import { changedTables, countRows } from '../helpers/row-counts.js';
import { createSandboxEnv } from '../helpers/sandbox-env.js';

/*
 * Hostile input against every operation of GET /v1/openapi.json, so that a route added later is
 * covered without touching this file. Each operation gets a fixed corpus: malformed and deep JSON, wrong
 * content types, wrong types for every body, query and path parameter, huge and negative numbers, bad
 * ids, path traversal and unicode edge cases.
 *
 * A hostile case must answer a 4xx in the envelope {error, code, details} and store no row (the row
 * count of every table is compared before and after each operation's cases). A few cases are valid text
 * that may be accepted (an RTL override in a name, a long search string): those may answer 2xx, but never
 * a 5xx, and a refusal is still in the envelope.
 *
 * One app instance, with every platform configured against its loopback simulator so that connect
 * flows run for real; each operation's cases run concurrently through app.inject. A full key sends the
 * whole corpus; a read-only and a profile-scoped key send the writes and what their scope must refuse.
 *
 * Hostile data that arrives from the platforms rather than in a request (messages, comments and reviews
 * written through each simulator's `_inbound`, then synced and read through every inbox route of the
 * same document) is hostile-inbound.test.ts.
 */

type Expect = 'reject' | 'any';
interface Case {
  op: string;
  name: string;
  method: string;
  url: string;
  payload?: string;
  headers?: Record<string, string>;
  expect: Expect;
  key?: 'full' | 'read' | 'profile';
}
interface Outcome {
  c: Case;
  status: number;
  body: string;
  problem: string | null;
}

const DEEP = 5_000;
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const NO_ID = '0123456789abcdef01234567';
// Over the longest bounded text field (post content, 100,000 characters), under the body limit.
const LONG = 'x'.repeat(150_000);

/** Strings that must be refused wherever they are sent (not text, or not an id). */
const BAD_TEXT: [string, string][] = [
  ['lone surrogate', '\ud800'],
  ['NUL', 'a\u0000b'],
];
/** Valid text, odd but acceptable (it may be stored). */
const ODD_TEXT: [string, string][] = [
  ['RTL override', '\u202egnp.exe'],
  ['very long string', LONG],
];
/** Path segments that name nothing: each must be a 4xx. */
const BAD_SEGMENTS: [string, string][] = [
  ['unknown id', NO_ID],
  ['not an id', 'not-an-id'],
  ['quote', "1'%20OR%20'1'='1"],
  ['traversal ../', '..%2F..%2Fetc%2Fpasswd'],
  ['traversal %2e%2e', '%2e%2e'],
  ['traversal %2e%2e%2f', '%2e%2e%2f%2e%2e%2fetc%2fpasswd'],
  ['NUL', 'a%00b'],
  ['lone surrogate (CESU bytes)', '%ED%A0%80'],
  ['RTL override', '%E2%80%AE' + 'abc'],
  ['long id', 'a'.repeat(90)],
  ['negative number', '-1'],
  ['huge number', '1e20'],
];

type Schema = Record<string, any>;

function resolve(doc: any, s: Schema | undefined): Schema {
  let cur = s ?? {};
  for (let i = 0; i < 10 && cur.$ref; i++) {
    const path = String(cur.$ref).replace(/^#\//, '').split('/');
    cur = path.reduce((o: any, k) => o?.[k], doc) ?? {};
  }
  return cur;
}

/** The JSON types a schema accepts (unions, nullable, enums and consts included). */
function typesOf(doc: any, s: Schema): Set<string> {
  s = resolve(doc, s);
  const out = new Set<string>();
  const alts = s.anyOf ?? s.oneOf;
  if (alts) for (const a of alts) typesOf(doc, a).forEach((t) => out.add(t));
  if (s.allOf) for (const a of s.allOf) typesOf(doc, a).forEach((t) => out.add(t));
  if (Array.isArray(s.type)) s.type.forEach((t: string) => out.add(t));
  else if (s.type) out.add(s.type);
  if (s.const !== undefined) out.add(typeof s.const === 'object' ? 'object' : typeof s.const);
  if (s.enum) for (const v of s.enum) out.add(v === null ? 'null' : typeof v);
  if (out.has('integer')) out.add('number');
  return out;
}

/** A plausible value for a schema: enough for the other fields to pass, so the mutated one is tested. */
function sample(doc: any, s: Schema, depth = 0): unknown {
  s = resolve(doc, s);
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return sample(doc, alts[0], depth + 1);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((a: Schema) => sample(doc, a, depth + 1)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      if (s.format === 'date-time') return '2030-01-01T00:00:00.000Z';
      if (s.format === 'uri' || s.format === 'url') return 'https://example.com/x';
      if (s.format === 'email') return 'someone@example.com';
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return s.minItems && depth < 4
        ? Array.from({ length: s.minItems }, () => sample(doc, s.items ?? {}, depth + 1))
        : [];
    case 'object': {
      const o: Record<string, unknown> = {};
      if (depth < 4) for (const k of s.required ?? []) o[k] = sample(doc, s.properties?.[k] ?? {}, depth + 1);
      return o;
    }
    default:
      return 'x';
  }
}

/** Values of a wrong JSON type for a schema, each with a label. */
function wrongTypes(types: Set<string>): [string, unknown][] {
  const all: [string, string, unknown][] = [
    ['string', 'a string', 'not-the-type'],
    ['number', 'a number', 12345],
    ['boolean', 'a boolean', true],
    ['array', 'an array', ['x']],
    ['object', 'an object', { x: 1 }],
    ['null', 'null', null],
  ];
  return all.filter(([t]) => !types.has(t)).map(([, label, v]) => [label, v]);
}

/** Hostile numbers for a numeric schema; a value inside the schema's bounds is only 'any'. */
function numberCases(s: Schema, integer: boolean): [string, unknown, Expect][] {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1e-9 : undefined);
  const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1e-9 : undefined);
  const out: [string, unknown, Expect][] = [
    ['1e20', 1e20, max !== undefined ? 'reject' : 'any'],
    ['-1', -1, min !== undefined && min > -1 ? 'reject' : 'any'],
    ['"Infinity"', 'Infinity', 'reject'],
    ['"NaN"', 'NaN', 'reject'],
    ['1e400 (Infinity in JSON)', 1e400, 'reject'],
  ];
  if (integer) out.push(['1.5', 1.5, 'reject']);
  return out;
}

function numberQueryCases(s: Schema, integer: boolean): [string, string, Expect][] {
  const min = s.minimum;
  const max = s.maximum;
  const out: [string, string, Expect][] = [
    ['1e20', '1e20', max !== undefined || integer ? 'reject' : 'any'],
    ['-1', '-1', min !== undefined && min > -1 ? 'reject' : 'any'],
    ['Infinity', 'Infinity', 'reject'],
    ['NaN', 'NaN', 'reject'],
    ['empty', '', 'reject'],
  ];
  if (integer) out.push(['1.5', '1.5', 'reject']);
  return out;
}

interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}

/** Every hostile case of one operation (with the full key), and its plausible write with a read-only key. */
function casesFor(doc: any, method: string, path: string, op: any, profileId: string): Case[] {
  const id = `${method.toUpperCase()} ${path}`;
  const params: Param[] = (op.parameters ?? []).filter((p: Param) => p.in === 'path' || p.in === 'query');
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const jsonBody = op.requestBody?.content?.['application/json']?.schema;
  const bodySchema = jsonBody ? resolve(doc, jsonBody) : null;

  const baseSegment = (p: Param) => {
    const s = resolve(doc, p.schema);
    if (s.enum) return String(s.enum[0]);
    if (p.name === 'platform') return 'twitter';
    if (p.name === '*') return 'nothing/here.png';
    return NO_ID;
  };
  const buildPath = (override?: { name: string; raw: string }) =>
    path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (override && override.name === name) return override.raw;
      return encodeURIComponent(baseSegment(pathParams.find((p) => p.name === name) ?? { name, in: 'path' })).replace(
        /%2F/g,
        '/',
      );
    });
  const baseQuery: Record<string, string> = {};
  for (const p of queryParams) {
    if (!p.required) continue;
    const v = sample(doc, p.schema ?? {});
    baseQuery[p.name] = p.name === 'profileId' ? profileId : String(v);
  }
  const url = (pathPart: string, query: Record<string, string> = baseQuery, rawQuery?: string) => {
    const q = new URLSearchParams(query).toString();
    return pathPart + (rawQuery !== undefined ? `?${[q, rawQuery].filter(Boolean).join('&')}` : q ? `?${q}` : '');
  };
  const baseBody = bodySchema ? (sample(doc, bodySchema) as Record<string, unknown>) : undefined;
  if (baseBody && typeof baseBody === 'object' && 'profileId' in baseBody) baseBody.profileId = profileId;
  const json = (body: unknown) => ({ payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const cases: Case[] = [];
  const add = (name: string, expect: Expect, c: Partial<Case>) =>
    cases.push({ op: id, name, method: method.toUpperCase(), url: url(buildPath()), expect, ...c });

  // Path parameters: ids that name nothing, traversal, odd bytes.
  for (const p of pathParams) {
    for (const [label, raw] of BAD_SEGMENTS) {
      const rawSeg = p.name === '*' ? `x/${raw}` : raw;
      // app.inject resolves a %2e%2e segment as `..` before Herald sees the URL (as WHATWG URLs do), so a
      // read may land on another route that answers; a real client sends it as is.
      const e: Expect = method === 'get' && label === 'traversal %2e%2e' ? 'any' : 'reject';
      add(`path ${p.name}: ${label}`, e, {
        url: url(buildPath({ name: p.name, raw: rawSeg })),
        ...(baseBody ? json(baseBody) : {}),
      });
    }
    if (p.name === '*')
      add('path *: ../ segments', 'reject', { url: url(buildPath({ name: '*', raw: '../../../etc/passwd' })) });
  }

  // Query parameters.
  const write = method !== 'get';
  for (const p of queryParams) {
    const s = resolve(doc, p.schema);
    const types = typesOf(doc, s);
    const with1 = (value: string) => url(buildPath(), { ...baseQuery, [p.name]: value });
    if (types.has('integer') || types.has('number')) {
      for (const [label, v, e] of numberQueryCases(s, types.has('integer')))
        add(`query ${p.name}: ${label}`, e, { url: with1(v) });
      add(`query ${p.name}: wrong type`, 'reject', { url: with1('abc') });
    } else if (types.has('boolean') && types.size <= 2) {
      add(`query ${p.name}: wrong type`, 'reject', { url: with1('maybe') });
    } else if (
      s.enum ||
      ((s.anyOf ?? []).every((a: Schema) => resolve(doc, a).const !== undefined || resolve(doc, a).enum) && s.anyOf)
    ) {
      add(`query ${p.name}: not one of the values`, 'reject', { url: with1('zzz-not-a-value') });
    }
    // Odd strings: a write must refuse them; a read may answer an empty result.
    // The query parser turns invalid UTF-8 into replacement characters: valid text by then.
    add(`query ${p.name}: lone surrogate bytes`, write ? 'reject' : 'any', {
      url: url(buildPath(), baseQuery, `${encodeURIComponent(p.name)}=%ED%A0%80`),
    });
    add(`query ${p.name}: NUL`, 'reject', { url: url(buildPath(), baseQuery, `${encodeURIComponent(p.name)}=a%00b`) });
    add(`query ${p.name}: traversal`, write ? 'reject' : 'any', { url: with1('../../etc/passwd') });
    add(`query ${p.name}: RTL override`, write ? 'reject' : 'any', { url: with1('\u202eabc') });
    add(`query ${p.name}: repeated`, write ? 'reject' : 'any', {
      url: url(buildPath(), baseQuery, `${encodeURIComponent(p.name)}=a&${encodeURIComponent(p.name)}=b`),
    });
  }

  // Bodies: malformed, deep, wrong content types, then each property.
  if (method === 'post' || method === 'put' || method === 'patch' || method === 'delete') {
    add('malformed JSON', 'reject', { payload: '{"a": ', headers: { 'content-type': 'application/json' } });
    add('trailing garbage after JSON', 'reject', { payload: '{} x', headers: { 'content-type': 'application/json' } });
    add('deep JSON object', 'reject', { payload: deepObject(DEEP), headers: { 'content-type': 'application/json' } });
    add('deep JSON array', 'reject', { payload: deepArray(DEEP), headers: { 'content-type': 'application/json' } });
    add('deep JSON with an Idempotency-Key', 'reject', {
      payload: deepObject(DEEP),
      headers: { 'content-type': 'application/json', 'idempotency-key': `deep-${id}` },
    });
    add('text/plain body', 'reject', { payload: 'hello', headers: { 'content-type': 'text/plain' } });
    add('form body', 'reject', {
      payload: 'a=b&c=d',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    add('XML body', 'reject', { payload: '<a>b</a>', headers: { 'content-type': 'application/xml' } });
    add('JSON content type with charset junk', 'reject', {
      payload: '{"a": ',
      headers: { 'content-type': 'application/json; charset=utf-7' },
    });
    add('__proto__ key', 'reject', {
      ...json(baseBody ?? {}),
      payload: JSON.stringify(baseBody ?? {})
        .replace(/^\{/, '{"__proto__":{"isAdmin":true},')
        .replace(/,\}$/, '}'),
    });
  }
  if (bodySchema && baseBody && typeof baseBody === 'object') {
    add('body is an array', 'reject', json([baseBody]));
    add('body is a string', 'reject', json('x'));
    add('body is null', 'reject', json(null));
    for (const [prop, raw] of Object.entries<Schema>(bodySchema.properties ?? {})) {
      const s = resolve(doc, raw);
      const types = typesOf(doc, s);
      const withProp = (v: unknown) => json({ ...baseBody, [prop]: v });
      if (types.size) for (const [label, v] of wrongTypes(types)) add(`body ${prop}: ${label}`, 'reject', withProp(v));
      if (types.has('number'))
        for (const [label, v, e] of numberCases(s, types.has('integer') && !types.has('string'))) {
          if (types.has('string') && typeof v === 'string') continue;
          add(`body ${prop}: ${label}`, e, withProp(v));
        }
      if (types.has('string')) {
        for (const [label, v] of BAD_TEXT) add(`body ${prop}: ${label}`, 'reject', withProp(v));
        const bounded = s.maxLength !== undefined || s.enum || s.format || s.pattern;
        for (const [label, v] of ODD_TEXT)
          add(`body ${prop}: ${label}`, label === 'very long string' && bounded ? 'reject' : 'any', withProp(v));
        add(`body ${prop}: traversal`, 'any', withProp('../../etc/passwd'));
      }
      if (types.has('object') || types.has('array')) {
        add(`body ${prop}: deep JSON`, 'reject', {
          payload: JSON.stringify({ ...baseBody, [prop]: 0 }).replace(
            `"${prop}":0`,
            `"${prop}":${types.has('object') ? deepObject(DEEP) : deepArray(DEEP)}`,
          ),
          headers: { 'content-type': 'application/json' },
        });
      }
      if (types.has('array')) {
        const items = resolve(doc, s.items);
        const it = typesOf(doc, items);
        if (it.size)
          for (const [label, v] of wrongTypes(it).slice(0, 2))
            add(`body ${prop}[0]: ${label}`, 'reject', withProp([v]));
        if (it.has('string'))
          for (const [label, v] of BAD_TEXT) add(`body ${prop}[0]: ${label}`, 'reject', withProp([v]));
      }
    }
  }
  // The plausible request itself (sample body, real profile), for a read-only key only: any write with
  // it is refused, whatever the body.
  if (method !== 'get') add('plausible write', 'reject', { key: 'read', ...(baseBody ? json(baseBody) : {}) });
  return cases;
}

/** A code of the error-code catalogue (docs/errors.md), a platform-named one with a platform's id. */
const TEMPLATES = Object.keys(PLATFORM_ERROR_CODES).map(
  (t) => new RegExp(`^${t.replace('{platform}', `(${PLATFORMS.join('|')})`)}$`),
);
const isCatalogued = (code: string) => Object.hasOwn(ERROR_CODES, code) || TEMPLATES.some((t) => t.test(code));

function isEnvelope(body: string): boolean {
  try {
    const b = JSON.parse(body);
    return (
      b !== null &&
      typeof b === 'object' &&
      typeof b.error === 'string' &&
      b.error.length > 0 &&
      typeof b.code === 'string' &&
      isCatalogued(b.code) &&
      (b.details === undefined || (typeof b.details === 'object' && b.details !== null))
    );
  } catch {
    return false;
  }
}

function judge(c: Case, status: number, body: string): string | null {
  // 501 is the spec's deliberate answer for the compatibility layer's features Herald does not offer
  // (the scraping tools), in the envelope: not a failure.
  if (status === 501 && isEnvelope(body)) return null;
  if (status >= 500) return `${status} (a 5xx)`;
  if (status >= 400) return isEnvelope(body) ? null : `${status} outside the envelope: ${body.slice(0, 120)}`;
  if (c.expect === 'reject') return `${status}: accepted a hostile request`;
  return null;
}

let sandbox: Awaited<ReturnType<typeof createSandboxEnv>>;
let env: TestEnv;
let doc: any;
const keys: Record<'full' | 'read' | 'profile', string> = { full: '', read: '', profile: '' };
let profileId = '';
let spareKeyId = '';

beforeAll(async () => {
  // Rate limits are not what this test is about: thousands of requests in a second from one key.
  sandbox = await createSandboxEnv(allSimulators(), { env: { RATE_LIMIT_DISABLED: 'true' } });
  env = sandbox.env;
  const { apiKey } = await env.createUser();
  keys.full = apiKey;
  doc = (await env.request(null, 'GET', '/v1/openapi.json')).body;
  const profile = await env.request(apiKey, 'POST', '/v1/profiles', { name: 'Hostile' });
  profileId = profile.body.profile._id;
  const mk = async (body: Record<string, unknown>) =>
    (await env.request(apiKey, 'POST', '/v1/api-keys', body)).body.apiKey;
  keys.read = (await mk({ name: 'read', permission: 'read' })).key;
  keys.profile = (await mk({ name: 'profile', scope: 'profiles', profileIds: [profileId] })).key;
  spareKeyId = (await mk({ name: 'spare' }))._id;
});
afterAll(async () => sandbox?.close());

async function send(c: Case): Promise<Outcome> {
  const res = await env.app.inject({
    method: c.method as any,
    url: c.url,
    headers: { authorization: `Bearer ${keys[c.key ?? 'full']}`, ...c.headers },
    ...(c.payload !== undefined ? { payload: c.payload } : {}),
  });
  return { c, status: res.statusCode, body: res.body, problem: judge(c, res.statusCode, res.body) };
}

/** Runs one operation's cases together; rows are counted before and after them. */
async function runOp(cases: Case[]): Promise<{ outcomes: Outcome[]; stored: Record<string, [number, number]> }> {
  const rejectOnly = cases.filter((c) => c.expect === 'reject');
  const before = await countRows(env.ctx);
  const outcomes = await Promise.all(rejectOnly.map(send));
  const stored = changedTables(before, await countRows(env.ctx));
  // The cases that may be accepted run after the count: they may store what they send.
  outcomes.push(...(await Promise.all(cases.filter((c) => c.expect === 'any').map(send))));
  return { outcomes, stored };
}

const line = (o: Outcome) => `${o.c.key ?? 'full'} ${o.c.op} :: ${o.c.name} -> ${o.problem}`;

describe('hostile input on every operation of the OpenAPI document', () => {
  it('answers every hostile request with a 4xx in the envelope and stores nothing', async () => {
    const ops: [string, string, any][] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item))
        if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) ops.push([method, path, op]);
    }
    expect(ops.length).toBeGreaterThan(50);

    const all: Outcome[] = [];
    const storedBy: Record<string, Record<string, [number, number]>> = {};
    const record = (op: string, stored: Record<string, [number, number]>) => {
      if (Object.keys(stored).length) storedBy[op] = stored;
    };
    for (const [method, path, op] of ops) {
      const full = casesFor(doc, method, path, op, profileId);
      // A subset of the hostile writes again with a read-only and with a profile-scoped key.
      const writes = full.filter(
        (c) =>
          !c.key && c.method !== 'GET' && /^path [^:]+: unknown id$|^body [^:]+: NUL$|^malformed JSON$/.test(c.name),
      );
      const scoped: Case[] = [
        ...writes.map((c) => ({ ...c, key: 'read' as const })),
        ...writes.map((c) => ({ ...c, key: 'profile' as const })),
      ];
      const { outcomes, stored } = await runOp([...full, ...scoped]);
      all.push(...outcomes);
      record(`${method.toUpperCase()} ${path}`, stored);
    }

    // Reads that must be refused to a read-only key (a connect flow is a write) and key management that
    // must be refused to a profile-scoped key; with real ids, so that only the key's scope can refuse them.
    const scopeCases: Case[] = [
      {
        op: 'GET /v1/connect/{platform}',
        name: 'connect with a read key',
        method: 'GET',
        url: `/v1/connect/linkedin?profileId=${profileId}`,
        expect: 'reject',
        key: 'read',
      },
      {
        op: 'GET /v1/connect/telegram',
        name: 'telegram code with a read key',
        method: 'GET',
        url: `/v1/connect/telegram?profileId=${profileId}`,
        expect: 'reject',
        key: 'read',
      },
      {
        op: 'GET /v1/api-keys',
        name: 'list keys with a profile key',
        method: 'GET',
        url: '/v1/api-keys',
        expect: 'reject',
        key: 'profile',
      },
      {
        op: 'POST /v1/api-keys',
        name: 'create a key with a profile key',
        method: 'POST',
        url: '/v1/api-keys',
        payload: JSON.stringify({ name: 'escalate' }),
        headers: { 'content-type': 'application/json' },
        expect: 'reject',
        key: 'profile',
      },
      {
        op: 'DELETE /v1/api-keys/{keyId}',
        name: 'revoke a full key with a profile key',
        method: 'DELETE',
        url: `/v1/api-keys/${spareKeyId}`,
        expect: 'reject',
        key: 'profile',
      },
    ];
    const scopeRun = await runOp(scopeCases);
    all.push(...scopeRun.outcomes);
    record('scope cases', scopeRun.stored);

    const count = (f: (o: Outcome) => boolean) => all.filter(f).length;
    const failures = all.filter((o) => o.problem);
    console.log(
      `hostile input (${dialect}): ${ops.length} operations, ${all.length} requests, ` +
        `${count((o) => o.status >= 200 && o.status < 300)} 2xx, ${count((o) => o.status >= 400 && o.status < 500)} 4xx, ` +
        `${count((o) => o.status >= 500)} 5xx, ${count((o) => o.status >= 400 && !isEnvelope(o.body))} outside the envelope`,
    );
    expect(failures.map(line)).toEqual([]);
    expect(storedBy).toEqual({});
  }, 110_000);
});
