import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandlers } from '../../src/http/errors.js';
import dashboard from '../../src/http/routes/system/dashboard.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

let dir: string;
let files: ReturnType<typeof Fastify>;
let env: TestEnv;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-web-'));
  fs.mkdirSync(path.join(dir, 'web', 'assets'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'web', 'index.html'), '<!doctype html><title>app</title>');
  fs.writeFileSync(path.join(dir, 'web', 'assets', 'index-abc.js'), 'console.log(1)');
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'not for the web');
  files = Fastify();
  installErrorHandlers(files);
  dashboard(files as any, {} as any, path.join(dir, 'web'));
  await files.ready();
  env = await createTestEnv();
});
afterAll(async () => {
  await files?.close();
  await env?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the dashboard files', () => {
  it('redirects / to /app/ and serves index.html for app routes, revalidated, with a CSP', async () => {
    const root = await files.inject({ url: '/' });
    expect([root.statusCode, root.headers.location]).toEqual([302, '/app/']);
    for (const url of ['/app/', '/app/calendar', '/app/compose?at=2026-01-01']) {
      const res = await files.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<title>app</title>');
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      // The composer reads a frame of a chosen video from a blob: URL for its thumbnail.
      expect(res.headers['content-security-policy']).toContain("media-src 'self' blob:");
    }
  });

  it('serves hashed assets for a year, and a missing file or a path outside the folder is a 404 in the envelope', async () => {
    const js = await files.inject({ url: '/app/assets/index-abc.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    for (const url of [
      '/app/assets/nope.js',
      '/app/../secret.txt',
      '/app/%2e%2e/secret.txt',
      '/app/assets/%2e%2e/%2e%2e/secret.txt',
    ]) {
      const res = await files.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('not for the web');
    }
    const missing = await files.inject({ url: '/app/assets/nope.js' });
    expect(missing.json()).toMatchObject({ error: 'File not found', code: 'not_found' });
  });

  it('an unbuilt dashboard says how to build it', async () => {
    const bare = Fastify();
    installErrorHandlers(bare);
    dashboard(bare as any, {} as any, path.join(dir, 'nothing-here'));
    const res = await bare.inject({ url: '/app/calendar' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'dashboard_not_built' });
    await bare.close();
  });

  it('in Herald, unknown API paths stay 404 in the envelope (no fallback to the app)', async () => {
    for (const url of ['/v1/nope', '/api/v1/nope', '/v1/app/calendar']) {
      const res = await env.request(null, 'GET', url);
      expect(res.status, url).toBe(404);
      expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    const root = await env.request(null, 'GET', '/');
    expect([root.status, root.headers.location]).toEqual([302, '/app/']);
  });
});
