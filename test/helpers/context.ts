import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Zernio } from '@getlatedev/node';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { createContext, type AppContext, type ContextOverrides } from '../../src/context.js';
import { createOwner } from '../../src/domain/users.js';
import { buildApp, type App } from '../../src/http/app.js';
import { FakeClock } from '../../src/lib/clock.js';
import { randomHex } from '../../src/lib/crypto.js';
import { dropPostgresSchema } from '../../src/store/db.js';

/** Which database this run uses: `npm test` runs the suite once per dialect (scripts/test.mjs). */
/**
 * The PostgreSQL server of the PostgreSQL run, with `synchronous_commit=off` for the tests' sessions: a
 * commit then returns before its WAL record is flushed to disk. Nothing a test can see changes (a
 * committed transaction is visible to every other session at once; only a crash of the PostgreSQL server
 * itself could lose the last commits, and no test crashes it), and the run spends no time in fsync: 45%
 * less time in the commit-heavy files here. A URL that sets its own `options` keeps them.
 */
export const TEST_DATABASE_URL = withTestSessionOptions(process.env.TEST_DATABASE_URL || null);

function withTestSessionOptions(url: string | null): string | null {
  if (!url) return null;
  const parsed = new URL(url);
  if (!parsed.searchParams.has('options')) parsed.searchParams.set('options', '-c synchronous_commit=off');
  return parsed.toString();
}
export const dialect = TEST_DATABASE_URL ? 'postgres' : 'sqlite';

export interface TestEnv {
  ctx: AppContext;
  app: App;
  clock: FakeClock;
  config: Config;
  /** Creates a tenant owner and returns its first API key. */
  createUser(opts?: { plan?: string; addons?: string[] }): Promise<{ userId: string; apiKey: string }>;
  /** Starts a real listener on an ephemeral loopback port (once) and returns its base URL. */
  listen(): Promise<string>;
  /** The official SDK pointed at this server (`prefix` '/api' exercises the SDK's default path shape). */
  sdk(apiKey: string, prefix?: '' | '/api'): Promise<Zernio>;
  /** `app.inject` with a Bearer key. */
  request(
    apiKey: string | null,
    method: string,
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

export interface TestEnvOptions {
  env?: Record<string, string>;
  overrides?: ContextOverrides;
  /** Start the clock here (default: real now, so SDK-visible times look normal). */
  now?: Date | string;
}

/**
 * A fresh Herald on a fresh database: a temp SQLite file, or a new PostgreSQL schema that `close`
 * drops. Nothing is shared between test files.
 */
export async function createTestEnv(opts: TestEnvOptions = {}): Promise<TestEnv> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-test-'));
  const schema = TEST_DATABASE_URL ? `t_${randomHex(6)}` : null;
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PORT: '0',
    SECRET_KEY: 'test-secret-test-secret-test-secret-1234',
    ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema! } : {}),
    ...opts.env,
  });
  const clock = new FakeClock(opts.now ?? new Date());
  const ctx = await createContext(config, { clock, log: pino({ level: 'silent' }), ...opts.overrides });
  const app = await buildApp(ctx);
  let baseUrl: string | null = null;

  const env: TestEnv = {
    ctx,
    app,
    clock,
    config,
    async createUser({ plan = 'unlimited', addons = [] } = {}) {
      const email = `user-${randomHex(6)}@example.test`;
      const { user, apiKey } = await createOwner(ctx.db, { email, plan, addons }, clock.now());
      return { userId: user.user_id, apiKey };
    },
    async listen() {
      if (!baseUrl) {
        await app.listen({ host: '127.0.0.1', port: 0 });
        const addr = app.server.address() as AddressInfo;
        baseUrl = `http://127.0.0.1:${addr.port}`;
      }
      return baseUrl;
    },
    async sdk(apiKey, prefix = '') {
      const base = await env.listen();
      return new Zernio({ apiKey, baseURL: base + prefix });
    },
    async request(apiKey, method, url, body, headers = {}) {
      const res = await app.inject({
        method: method as any,
        url,
        headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers },
        ...(body !== undefined ? { payload: body as any } : {}),
      });
      let parsed: any = res.body;
      if (String(res.headers['content-type'] ?? '').startsWith('application/json') && res.body)
        parsed = JSON.parse(res.body);
      return { status: res.statusCode, body: parsed, headers: res.headers };
    },
    async close() {
      await app.close();
      await ctx.close();
      if (schema && TEST_DATABASE_URL) await dropPostgresSchema(TEST_DATABASE_URL, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return env;
}
