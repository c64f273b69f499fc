import fs from 'node:fs';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { EventOutbox } from './domain/events.js';
import { installWebhookFanout } from './domain/webhooks/fanout.js';
import { createPlatformRegistry, type PlatformRegistry } from './platforms/registry.js';
import { LocalBudgets, RedisBudgets, type Budgets } from './domain/publishing/pacing/budgets.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './http/rate-limit.js';
import { systemClock, type Clock } from './lib/clock.js';
import { randomHex, SecretBox } from './lib/crypto.js';
import { openDb, type Db } from './store/db.js';
import { claimMetaKey, readMeta } from './store/meta.js';
import { migrate } from './store/migrations/index.js';

/**
 * Everything a request handler, job or CLI command needs, built by hand in one place
 * (no container). `close()` releases it in reverse order.
 */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  /** Encrypts platform tokens at rest. */
  secrets: SecretBox;
  /** The raw service secret, for HMAC-signed URLs. */
  secret: string;
  rateLimiter: RateLimiter;
  events: EventOutbox;
  /** Platform adapters by platform (real protocols; base URLs from config or SANDBOX_URL). */
  platforms: PlatformRegistry;
  /** Publishing budgets from the platforms' limits: in Redis when REDIS_URL is set, else this process's share. */
  budgets: Budgets;
  close(): Promise<void>;
}

export interface ContextOverrides {
  clock?: Clock;
  log?: Logger;
  rateLimiter?: RateLimiter;
  db?: Db;
  platforms?: PlatformRegistry;
  budgets?: Budgets;
}

export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? pino({ level: config.logLevel });
  const db =
    overrides.db ??
    (await openDb({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, databaseSchema: config.databaseSchema }));
  const clock = overrides.clock ?? systemClock;
  await migrate(db);
  const secret = config.secretKey ?? (await loadOrCreateSecret(db, config, clock));
  const rateLimiter =
    overrides.rateLimiter ?? (config.redisUrl ? new RedisRateLimiter(config.redisUrl) : new MemoryRateLimiter());
  const budgets = overrides.budgets ?? (config.redisUrl ? new RedisBudgets(config.redisUrl) : new LocalBudgets());
  const ctx: AppContext = {
    config,
    db,
    clock,
    log,
    secrets: new SecretBox(secret),
    secret,
    rateLimiter,
    events: new EventOutbox(),
    platforms: overrides.platforms ?? createPlatformRegistry(config),
    budgets,
    async close() {
      await rateLimiter.close();
      await budgets.close();
      await db.close();
    },
  };
  installWebhookFanout(ctx);
  return ctx;
}

/**
 * Without SECRET_KEY, a secret is generated once: into the data directory on SQLite; into the shared
 * database on PostgreSQL, so every process of a cluster uses the same one (set SECRET_KEY in production).
 */
async function loadOrCreateSecret(db: Db, config: Config, clock: Clock): Promise<string> {
  if (db.dialect === 'sqlite') {
    const file = path.join(config.dataDir, 'secret.key');
    if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
    fs.mkdirSync(config.dataDir, { recursive: true });
    const secret = randomHex(32);
    try {
      fs.writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
      return secret;
    } catch {
      return fs.readFileSync(file, 'utf8').trim(); // another process wrote it first
    }
  }
  await claimMetaKey(db.kysely, 'secret_key', randomHex(32), clock.now());
  const stored = await readMeta(db.kysely, 'secret_key');
  if (!stored) throw new Error('could not read the generated secret from the database');
  return stored;
}
