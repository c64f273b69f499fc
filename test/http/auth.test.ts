import { Zernio, ZernioApiError } from '@getlatedev/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

let env: TestEnv;
let apiKey: string;
beforeAll(async () => {
  env = await createTestEnv();
  ({ apiKey } = await env.createUser());
});
afterAll(async () => env?.close());

describe('authentication', () => {
  const cases: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an unknown key', { authorization: `Bearer sk_${'0'.repeat(64)}` }],
    ['a malformed key', { authorization: 'Bearer sk_123' }],
    ['a Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['the key without a scheme', { authorization: 'PLACEHOLDER' }],
    ['an empty Bearer', { authorization: 'Bearer ' }],
  ];
  for (const [label, headers] of cases) {
    it(`answers 401 with {error} for ${label}`, async () => {
      const h = { ...headers };
      if (h.authorization === 'PLACEHOLDER') h.authorization = apiKey;
      const res = await env.app.inject({ method: 'GET', url: '/v1/profiles', headers: h });
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(typeof res.json().error).toBe('string');
      expect(res.json().code).toBe('unauthorized');
      expect(res.headers['x-request-id']).toBeTruthy();
    });
  }

  it('accepts the scheme case-insensitively', async () => {
    const res = await env.app.inject({
      method: 'GET',
      url: '/v1/profiles',
      headers: { authorization: `bearer ${apiKey}` },
    });
    expect(res.statusCode).toBe(200);
  });

  it('surfaces 401 to the official SDK as an auth error', async () => {
    const base = await env.listen();
    const client = new Zernio({ apiKey: `sk_${'f'.repeat(64)}`, baseURL: base });
    const err = await client.profiles.listProfiles().then(
      () => null,
      (e: any) => e,
    );
    expect(err).toBeInstanceOf(ZernioApiError);
    expect(err.statusCode).toBe(401);
    expect(err.isAuthError()).toBe(true);
  });

  it('serves every route under both /v1 and /api/v1', async () => {
    for (const prefix of ['', '/api'] as const) {
      const client = await env.sdk(apiKey, prefix);
      const created = await client.profiles.createProfile({ body: { name: `via ${prefix || 'v1'}` } });
      expect(created.response.status).toBe(201);
      expect(created.response.url).toContain(`${prefix}/v1/profiles`);
    }
    const viaApi = await env.request(apiKey, 'GET', '/api/v1/profiles');
    const viaV1 = await env.request(apiKey, 'GET', '/v1/profiles');
    expect(viaApi.body).toEqual(viaV1.body);
    expect(viaV1.body.profiles).toHaveLength(2);
  });

  it('needs no key for /health, /docs and the OpenAPI document', async () => {
    const health = await env.request(null, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body.database).toEqual({ status: 'ok', dialect: env.ctx.db.dialect });
    expect(health.body.scheduler).toMatchObject({ queueDepth: 0, lagMs: 0 });
    const doc = await env.request(null, 'GET', '/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toContain('/v1/profiles');
    expect(Object.keys(doc.body.paths).some((p) => p.startsWith('/api/'))).toBe(false);
    expect(doc.body.paths['/v1/profiles'].post.responses['201']).toBeDefined();
    // Each platform's platformSpecificData fields, as a schema the dashboard draws its forms from.
    const data = Object.values<any>(doc.body.components.schemas).filter((s) => s['x-platform']);
    expect(data.length).toBeGreaterThan(10);
    for (const s of data)
      expect(s).toMatchObject({ type: 'object', additionalProperties: false, properties: expect.any(Object) });
    const described = data.flatMap((s) => Object.values<any>(s.properties));
    expect(described.filter((f) => f.type === 'string' && f.maxLength).length).toBeGreaterThan(0);
    expect(described.filter((f) => f.type === 'boolean').length).toBeGreaterThan(0);
    expect(described.filter((f) => Array.isArray(f.enum)).length).toBeGreaterThan(0);
    const docs = await env.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/^text\/html/);
    // The reference is drawn in the browser from the OpenAPI document, by a bundle this server serves.
    expect(docs.body).toContain('/v1/openapi.json');
    expect(docs.body).toContain('<script src="/docs/scalar.js"></script>');
    expect(docs.body).not.toMatch(/<script>|https?:\/\//);
    expect(docs.headers['content-security-policy']).toContain("script-src 'self'");
    const bundle = await env.app.inject({ method: 'GET', url: '/docs/scalar.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/^text\/javascript/);
    expect(bundle.body).toContain('createApiReference');
    const init = await env.app.inject({ method: 'GET', url: '/docs/init.js' });
    expect(init.body).toContain("url: '/v1/openapi.json'");
  });

  it('serves /docs with a CSP and frame headers, like the other HTML pages', async () => {
    const docs = await env.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBe(200);
    const csp = String(docs.headers['content-security-policy'] ?? '');
    // Scripts from this server only (no inline script, no other host), nothing reached elsewhere, and
    // nobody may frame it.
    expect(csp).toContain("default-src 'self'");
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(docs.headers['x-frame-options']).toBe('DENY');
    expect(docs.headers['x-content-type-options']).toBe('nosniff');
    expect(docs.headers['referrer-policy']).toBe('no-referrer');
  });
});
