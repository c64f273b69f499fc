import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Herald's own folder (the one with package.json): this file is src/config.ts, or dist/config.js once
 * built. The default DATA_DIR is resolved against it rather than the working directory, so that the
 * server (`npm start`) and the admin CLI (`herald ...` from any folder) open the same database.
 */
const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Every setting Herald reads. `loadConfig` is the only place that touches `process.env`;
 * everything else receives a `Config`. Each variable is documented in docs/configuration.md (a platform's
 * own on its page, docs/platforms/<platform>.md).
 */
export interface Config {
  /** Listen address. Default 127.0.0.1. */
  host: string;
  /** Listen port. Default 3000 (0 picks a free port). */
  port: number;
  /** Base URL Herald puts in links it hands out (callbacks, upload URLs). Default: the listen address. */
  publicUrl: string;
  /**
   * Folder for the embedded database, uploads and generated secrets. Default: `data` in Herald's own folder
   * (PROJECT_ROOT), whatever the working directory; a relative DATA_DIR is relative to the working directory.
   */
  dataDir: string;
  /** postgres://... switches storage to PostgreSQL; empty means SQLite in dataDir. */
  databaseUrl: string | null;
  /** PostgreSQL schema to use (tests give each run its own). Default: the server's default (public). */
  databaseSchema: string | null;
  /** HERALD_API_KEY: the API key `herald mcp` (the MCP server on stdio) acts with; nothing else reads it. */
  mcpApiKey: string | null;
  /** redis://... makes rate limits shared between processes. */
  redisUrl: string | null;
  /** Which parts run in this process: `all` (API + worker), `api`, `worker`. */
  role: 'all' | 'api' | 'worker';
  /** pino level. */
  logLevel: string;
  /** SESSION_TTL_HOURS: how long a dashboard sign-in (password session) lasts. Default 168 (7 days). */
  sessionTtlHours: number;
  /** Largest accepted JSON body in bytes. Default 1 MiB. */
  bodyLimit: number;
  /** Disables the rate limiter entirely. */
  rateLimitDisabled: boolean;
  /** Multiplies every plan's requests-per-minute (self-hosters on their own hardware). Default 1. */
  rateLimitScale: number;
  /** Secret for encrypting tokens and signing URLs; generated into dataDir when unset. */
  secretKey: string | null;
  /** Job runner: poll interval in ms (default 250). */
  workerPollMs: number;
  /**
   * Jobs in flight per process (default 2048). Not the pace: publishes are paced by each platform's
   * budgets (docs/pacing.md). This is a memory guard: a publish in flight holds well under 100 KB while
   * it waits on the network, so 2048 stay within ~200 MB (measured by `npm run bench campaign`).
   */
  workerConcurrency: number;
  /** Most due jobs claimed by one statement; finished jobs trigger a new claim once this many slots are free (default 32). */
  workerBatchSize: number;
  /** How long a claimed job stays leased before another worker may take it over, in ms (default 120000). */
  workerLeaseMs: number;
  /** WEBHOOK_ALLOW_INSECURE=1 lets webhooks use http:// and private or loopback addresses (development only). */
  webhookAllowInsecure: boolean;
  /**
   * OUTBOUND_ALLOW_PRIVATE=1 lets Herald fetch tenant-chosen URLs (external media, link pages) on
   * private, loopback and link-local addresses (development only; lib/outbound.ts).
   */
  outboundAllowPrivate: boolean;
  /** SANDBOX=1 runs the platform simulators inside Herald on SANDBOX_PORT (default PORT+1) and points the adapters at them. */
  sandbox: boolean;
  sandboxPort: number;
  /** Access tokens expiring within this many minutes are refreshed ahead by the worker (default 10). */
  tokenRefreshAheadMinutes: number;
  /** Inbox add-on: how often each account that does not push is polled, in ms (INBOX_POLL_MS, default 60000). */
  inboxPollMs: number;
  /** Inbox polls run at the same time by one process, in slots of their own beside WORKER_CONCURRENCY (default 4). */
  inboxSyncConcurrency: number;
  /** Webhook deliveries run at the same time by one process, in slots of their own beside WORKER_CONCURRENCY (default 8). */
  webhookConcurrency: number;
  /**
   * ANALYTICS_SCHEDULE: the ages after publishing at which a post's metrics are read, in ms, ascending
   * (default `1h,6h,1d,2d,7d,30d,90d`). Units s, m, h, d.
   */
  analyticsScheduleMs: number[];
  /** ANALYTICS_CONCURRENCY: metric collection jobs run at the same time, apart from publishing's slots (default 2). */
  analyticsConcurrency: number;
  /** Raw environment for platform-specific settings read by `platformConfig` (see src/platforms/config.ts). */
  env: Readonly<Record<string, string | undefined>>;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

/** Reads and validates the environment once, listing every problem at the same time. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return n;
  };
  const flag = (name: string): boolean => ['1', 'true', 'yes'].includes((env[name] ?? '').toLowerCase());

  const host = env.HOST || '127.0.0.1';
  const port = int('PORT', 3000, 0, 65535);
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const databaseSchema = env.DATABASE_SCHEMA || null;
  if (databaseSchema && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) {
    problems.push('DATABASE_SCHEMA must be a lowercase SQL identifier');
  }
  const redisUrl = env.REDIS_URL || null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) problems.push('REDIS_URL must start with redis:// or rediss://');
  const role = (env.HERALD_ROLE || 'all') as Config['role'];
  if (!['all', 'api', 'worker'].includes(role)) problems.push('HERALD_ROLE must be all, api or worker');
  const publicUrl = (env.PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    problems.push(`PUBLIC_URL is not a URL: "${publicUrl}"`);
  }
  const secretKey = env.SECRET_KEY || null;
  if (secretKey && secretKey.length < 32) problems.push('SECRET_KEY must be at least 32 characters');

  const config: Config = {
    host,
    port,
    publicUrl,
    dataDir: env.DATA_DIR ? path.resolve(env.DATA_DIR) : path.join(PROJECT_ROOT, 'data'),
    databaseUrl,
    databaseSchema,
    redisUrl,
    mcpApiKey: env.HERALD_API_KEY?.trim() || null,
    role,
    logLevel: env.LOG_LEVEL || 'info',
    sessionTtlHours: int('SESSION_TTL_HOURS', 168, 1, 24 * 365),
    bodyLimit: int('BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    rateLimitDisabled: flag('RATE_LIMIT_DISABLED'),
    rateLimitScale: int('RATE_LIMIT_SCALE', 1, 1, 1_000_000),
    secretKey,
    workerPollMs: int('WORKER_POLL_MS', 250, 10, 60_000),
    workerConcurrency: int('WORKER_CONCURRENCY', 2048, 1, 16_384),
    workerBatchSize: int('WORKER_BATCH_SIZE', 32, 1, 256),
    workerLeaseMs: int('WORKER_LEASE_MS', 120_000, 2_000, 3_600_000),
    webhookAllowInsecure: flag('WEBHOOK_ALLOW_INSECURE'),
    outboundAllowPrivate: flag('OUTBOUND_ALLOW_PRIVATE'),
    sandbox: flag('SANDBOX'),
    sandboxPort: int('SANDBOX_PORT', port === 0 ? 0 : Math.min(port + 1, 65535), 0, 65535),
    tokenRefreshAheadMinutes: int('TOKEN_REFRESH_AHEAD_MINUTES', 10, 1, 24 * 60),
    inboxPollMs: int('INBOX_POLL_MS', 60_000, 1_000, 86_400_000),
    inboxSyncConcurrency: int('INBOX_SYNC_CONCURRENCY', 4, 1, 64),
    webhookConcurrency: int('WEBHOOK_CONCURRENCY', 8, 1, 256),
    analyticsScheduleMs: parseSchedule(env.ANALYTICS_SCHEDULE, problems),
    analyticsConcurrency: int('ANALYTICS_CONCURRENCY', 2, 1, 64),
    env: Object.freeze({ ...env }),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

const DEFAULT_ANALYTICS_SCHEDULE = '1h,6h,1d,2d,7d,30d,90d';
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * ANALYTICS_SCHEDULE: comma-separated ages such as `1h,6h,1d`, each a positive whole number and a unit
 * (s, m, h, d), strictly increasing and at most 365 days. A bad list is a startup error that names it.
 */
function parseSchedule(raw: string | undefined, problems: string[]): number[] {
  const text = raw === undefined || raw.trim() === '' ? DEFAULT_ANALYTICS_SCHEDULE : raw;
  const ages: number[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    const m = /^(\d{1,6})([smhd])$/.exec(part);
    const ms = m ? Number(m[1]) * UNIT_MS[m[2]!]! : NaN;
    if (!m || ms <= 0 || ms > 365 * 86_400_000) {
      problems.push(
        `ANALYTICS_SCHEDULE must be comma-separated ages like 1h,6h,1d (units s, m, h, d; at most 365d); "${part}" is not one (got "${text}")`,
      );
      return parseSchedule(DEFAULT_ANALYTICS_SCHEDULE, []);
    }
    if (ages.length && ms <= ages[ages.length - 1]!) {
      problems.push(
        `ANALYTICS_SCHEDULE ages must increase: "${part}" comes after a later or equal age (got "${text}")`,
      );
      return parseSchedule(DEFAULT_ANALYTICS_SCHEDULE, []);
    }
    ages.push(ms);
  }
  return ages;
}
