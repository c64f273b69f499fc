import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

let env: TestEnv;
let apiKey: string;
let profileId: string;
beforeAll(async () => {
  env = await createTestEnv({ env: { BODY_LIMIT: '4096' } });
  ({ apiKey } = await env.createUser());
  profileId = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'existing' })).body.profile._id;
});
afterAll(async () => env?.close());

type Case = {
  label: string;
  method: string;
  url: string | (() => string);
  payload?: string;
  contentType?: string;
  status: number;
  code?: string;
  field?: string;
  headers?: Record<string, string>;
};

const json = 'application/json';
const cases: Case[] = [
  {
    label: 'malformed JSON',
    method: 'POST',
    url: '/v1/profiles',
    payload: '{"name":',
    contentType: json,
    status: 400,
    code: 'invalid_json',
  },
  {
    label: 'empty JSON body',
    method: 'POST',
    url: '/v1/profiles',
    payload: '',
    contentType: json,
    status: 400,
    code: 'invalid_json',
  },
  {
    label: 'a JSON array body',
    method: 'POST',
    url: '/v1/profiles',
    payload: '[]',
    contentType: json,
    status: 400,
    code: 'validation_error',
  },
  {
    label: 'a JSON string body',
    method: 'POST',
    url: '/v1/profiles',
    payload: '"x"',
    contentType: json,
    status: 400,
    code: 'validation_error',
  },
  { label: 'a null body', method: 'POST', url: '/v1/profiles', payload: 'null', contentType: json, status: 400 },
  {
    label: 'missing name',
    method: 'POST',
    url: '/v1/profiles',
    payload: '{}',
    contentType: json,
    status: 400,
    field: 'name',
  },
  {
    label: 'name of the wrong type',
    method: 'POST',
    url: '/v1/profiles',
    payload: '{"name":5}',
    contentType: json,
    status: 400,
    field: 'name',
  },
  {
    label: 'empty name',
    method: 'POST',
    url: '/v1/profiles',
    payload: '{"name":""}',
    contentType: json,
    status: 400,
    field: 'name',
  },
  {
    label: 'blank name',
    method: 'POST',
    url: '/v1/profiles',
    payload: '{"name":"   "}',
    contentType: json,
    status: 400,
    field: 'name',
  },
  {
    label: 'a name too long',
    method: 'POST',
    url: '/v1/profiles',
    payload: JSON.stringify({ name: 'x'.repeat(101) }),
    contentType: json,
    status: 400,
    field: 'name',
  },
  {
    label: 'a color that is not hex',
    method: 'POST',
    url: '/v1/profiles',
    payload: '{"name":"a","color":"red"}',
    contentType: json,
    status: 400,
    field: 'color',
  },
  {
    label: 'prototype poisoning',
    method: 'POST',
    url: '/v1/profiles',
    payload: '{"name":"a","__proto__":{"x":1}}',
    contentType: json,
    status: 400,
    code: 'forbidden_json_key',
  },
  {
    label: 'an escaped __proto__ key',
    method: 'POST',
    url: '/v1/profiles',
    payload: '{"name":"a","\\u005f_proto__":{"x":1}}',
    contentType: json,
    status: 400,
    code: 'forbidden_json_key',
  },
  {
    label: 'constructor.prototype',
    method: 'POST',
    url: '/v1/profiles',
    payload: '{"name":"a","x":{"constructor":{"prototype":{}}}}',
    contentType: json,
    status: 400,
    code: 'forbidden_json_key',
  },
  // Deep nesting overflowed the stack in the idempotency fingerprint and JSON.stringify (a 500).
  {
    label: 'arrays nested 2,000 deep',
    method: 'POST',
    url: '/v1/profiles',
    payload: '['.repeat(2000) + ']'.repeat(2000),
    contentType: json,
    status: 400,
    code: 'json_too_deep',
  },
  {
    label: 'objects nested 65 deep',
    method: 'POST',
    url: '/v1/profiles',
    payload: '{"a":'.repeat(65) + '1' + '}'.repeat(65),
    contentType: json,
    status: 400,
    code: 'json_too_deep',
  },
  {
    label: 'deep metadata in a post',
    method: 'POST',
    url: '/v1/posts',
    payload: `{"content":"x","metadata":${'{"a":'.repeat(300)}1${'}'.repeat(300)}}`,
    contentType: json,
    status: 400,
    code: 'json_too_deep',
  },
  {
    label: 'a deep body with an idempotency key',
    method: 'POST',
    url: '/v1/posts',
    payload: '['.repeat(1500) + ']'.repeat(1500),
    contentType: json,
    status: 400,
    code: 'json_too_deep',
    headers: { 'idempotency-key': 'deep-1' },
  },
  {
    label: 'a body over BODY_LIMIT',
    method: 'POST',
    url: '/v1/profiles',
    payload: JSON.stringify({ name: 'a', description: 'x'.repeat(5000) }),
    contentType: json,
    status: 413,
    code: 'payload_too_large',
  },
  {
    label: 'text/plain',
    method: 'POST',
    url: '/v1/profiles',
    payload: 'name=a',
    contentType: 'text/plain',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    label: 'a form body',
    method: 'POST',
    url: '/v1/profiles',
    payload: 'name=a',
    contentType: 'application/x-www-form-urlencoded',
    status: 415,
  },
  {
    label: 'multipart',
    method: 'POST',
    url: '/v1/api-keys',
    payload: '--x\r\n\r\n--x--',
    contentType: 'multipart/form-data; boundary=x',
    status: 415,
  },
  { label: 'an unknown route', method: 'GET', url: '/v1/does-not-exist', status: 404, code: 'route_not_found' },
  {
    label: 'an unknown method on a route',
    method: 'PATCH',
    url: '/v1/profiles',
    payload: '{}',
    contentType: json,
    status: 404,
  },
  {
    label: 'a malformed profile id',
    method: 'GET',
    url: '/v1/profiles/not-an-id',
    status: 404,
    code: 'profile_not_found',
  },
  { label: 'a very long profile id', method: 'GET', url: `/v1/profiles/${'a'.repeat(65)}`, status: 400 },
  {
    label: 'a non-boolean includeOverLimit',
    method: 'GET',
    url: '/v1/profiles?includeOverLimit=maybe',
    status: 400,
    field: 'includeOverLimit',
  },
  {
    label: 'expiresIn of 0',
    method: 'POST',
    url: '/v1/api-keys',
    payload: '{"name":"k","expiresIn":0}',
    contentType: json,
    status: 400,
    field: 'expiresIn',
  },
  {
    label: 'a fractional expiresIn',
    method: 'POST',
    url: '/v1/api-keys',
    payload: '{"name":"k","expiresIn":1.5}',
    contentType: json,
    status: 400,
    field: 'expiresIn',
  },
  {
    label: 'expiresIn as text',
    method: 'POST',
    url: '/v1/api-keys',
    payload: '{"name":"k","expiresIn":"7"}',
    contentType: json,
    status: 400,
    field: 'expiresIn',
  },
  {
    label: 'an unknown permission',
    method: 'POST',
    url: '/v1/api-keys',
    payload: '{"name":"k","permission":"admin"}',
    contentType: json,
    status: 400,
    field: 'permission',
  },
  {
    label: 'an unknown scope',
    method: 'POST',
    url: '/v1/api-keys',
    payload: '{"name":"k","scope":"some"}',
    contentType: json,
    status: 400,
    field: 'scope',
  },
  {
    label: 'profileIds not an array',
    method: 'POST',
    url: '/v1/api-keys',
    payload: '{"name":"k","scope":"profiles","profileIds":"abc"}',
    contentType: json,
    status: 400,
    field: 'profileIds',
  },
  {
    label: 'an update with isDefault as text',
    method: 'PUT',
    url: () => `/v1/profiles/${profileId}`,
    payload: '{"isDefault":"yes"}',
    contentType: json,
    status: 400,
    field: 'isDefault',
  },
  // Names Object.prototype has: tables of content types and formats answer only their own entries.
  {
    label: 'a content type named like an Object method',
    method: 'POST',
    url: '/v1/media/presign',
    payload: '{"filename":"a.png","contentType":"constructor"}',
    contentType: json,
    status: 400,
    code: 'content_type_not_allowed',
  },
  {
    label: 'a content type named __proto__',
    method: 'POST',
    url: '/v1/media/presign',
    payload: '{"filename":"a.png","contentType":"__proto__"}',
    contentType: json,
    status: 400,
    code: 'content_type_not_allowed',
  },
  // An unbounded skip reached the database as a number no integer column takes (a 500).
  ...['/v1/logs', '/v1/posts/logs', '/v1/connections/logs'].flatMap((list) =>
    ['Infinity', '1e20', '1000001', '-1'].map(
      (skip): Case => ({
        label: `skip=${skip} on ${list}`,
        method: 'GET',
        url: `${list}?skip=${skip}`,
        status: 400,
        field: 'skip',
      }),
    ),
  ),
  {
    label: 'a media size beyond any file',
    method: 'POST',
    url: '/v1/posts',
    payload: '{"content":"x","mediaItems":[{"type":"image","url":"https://e.test/a.png","size":1e300}]}',
    contentType: json,
    status: 400,
    field: 'mediaItems.0.size',
  },
];

describe('bad input', () => {
  for (const c of cases) {
    it(`answers ${c.status} in the error envelope to ${c.label}`, async () => {
      const before = await env.ctx.db.kysely.selectFrom('profile').select('profile_id').execute();
      const res = await env.app.inject({
        method: c.method as any,
        url: typeof c.url === 'function' ? c.url() : c.url,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(c.contentType ? { 'content-type': c.contentType } : {}),
          ...c.headers,
        },
        ...(c.payload !== undefined ? { payload: c.payload } : {}),
      });
      expect(res.statusCode).toBe(c.status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-request-id']).toBeTruthy();
      const body = res.json();
      expect(typeof body.error).toBe('string');
      expect(typeof body.code).toBe('string');
      expect(typeof body.details).toBe('object');
      if (c.code) expect(body.code).toBe(c.code);
      if (c.field) expect(Object.keys(body.details.fields)).toContain(c.field);
      // Nothing half-written.
      const after = await env.ctx.db.kysely.selectFrom('profile').select('profile_id').execute();
      expect(after.length).toBe(before.length);
    });
  }

  it('never leaks internals on an unexpected failure', async () => {
    const fresh = await createTestEnv();
    try {
      fresh.app.get('/boom-test-only', { config: { public: true } }, async () => {
        throw new Error('secret stack detail');
      });
      const res = await fresh.app.inject({ method: 'GET', url: '/boom-test-only' });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: 'Internal server error', code: 'internal_error', details: {} });
      expect(res.body).not.toContain('secret');
      expect(res.headers['x-request-id']).toBeTruthy();
    } finally {
      await fresh.close();
    }
  });
});
