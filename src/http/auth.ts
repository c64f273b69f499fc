import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { isPlanId, planOf, type Addon } from '../domain/plans.js';
import { intersectScopes, type Principal } from '../domain/principal.js';
import { sha256Hex } from '../lib/crypto.js';
import { findPrincipalByHash, type KeyPrincipal } from '../store/api-keys.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Route needs no API key (spec: pending-data, OAuth callbacks, health, docs). */
    public?: boolean;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

const unauthorized = (message: string) => new AppError('unauthenticated', 'unauthorized', message);

/** Resolves `Authorization: Bearer sk_...` to a Principal, or throws 401. */
export async function authenticate(ctx: AppContext, header: string | undefined): Promise<Principal> {
  if (!header) throw unauthorized('Missing API key: send Authorization: Bearer <key>');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Invalid authorization scheme: use Bearer');
  const key = match[1];
  if (!/^sk_[0-9a-f]{64}$/.test(key)) throw unauthorized('Invalid API key');
  const row = await findPrincipalByHash(ctx.db, sha256Hex(key));
  if (!row) throw unauthorized('Invalid API key');
  if (row.expires_at && row.expires_at <= ctx.clock.now().toISOString()) throw unauthorized('API key has expired');
  let principal = principalOf.get(row);
  if (!principal) {
    principal = toPrincipal(row);
    principalOf.set(row, principal);
  }
  return principal;
}

/** Principals of key rows: a cached row (store/directory.ts) gives the same Principal without re-parsing. */
const principalOf = new WeakMap<KeyPrincipal, Principal>();

function toPrincipal(row: KeyPrincipal): Principal {
  const keyScope: string[] | null = row.scope === 'profiles' ? JSON.parse(row.profile_ids) : null;
  const memberScope: string[] | null = row.profile_access ? JSON.parse(row.profile_access) : null;
  return Object.freeze({
    userId: row.user_id,
    tenantId: row.tenant_id,
    apiKeyId: row.api_key_id,
    plan: isPlanId(row.plan) ? row.plan : 'free',
    addons: Object.freeze(JSON.parse(row.addons) as Addon[]) as Addon[],
    permission: row.permission,
    profileIds: intersectScopes(keyScope, memberScope),
  });
}

/**
 * One onRequest hook for the API: authentication, read-only enforcement, then the per-tenant rate
 * limit. Rate-limit headers are set on every authenticated response, including errors.
 */
export function installAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.config?.public) return;
    const principal = await authenticate(ctx, request.headers.authorization);
    request.principal = principal;
    if (!ctx.config.rateLimitDisabled) {
      const limit = planOf(principal.plan).requestsPerMinute * ctx.config.rateLimitScale;
      const pending = ctx.rateLimiter.hit(principal.tenantId, limit, ctx.clock.now());
      const decision = pending instanceof Promise ? await pending : pending;
      reply.header('X-RateLimit-Limit', decision.limit);
      reply.header('X-RateLimit-Remaining', decision.remaining);
      reply.header('X-RateLimit-Reset', decision.resetAt);
      if (!decision.allowed) {
        const retryAfter = Math.max(1, decision.resetAt - Math.floor(ctx.clock.now().getTime() / 1000));
        reply.header('Retry-After', retryAfter);
        throw new AppError('rate_limited', 'rate_limit_exceeded', `Rate limit of ${limit} requests per minute exceeded`, {
          limit,
          retryAfter,
        });
      }
    }
    if (principal.permission === 'read' && request.method !== 'GET' && request.method !== 'HEAD') {
      throw new AppError('forbidden', 'read_only_key', 'This API key is read-only');
    }
  });
}
