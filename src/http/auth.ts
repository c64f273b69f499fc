import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { isPlanId, planOf, type Addon } from '../domain/plans.js';
import { assertFullScopeKey, assertWriteAllowed, intersectScopes, type Principal } from '../domain/principal.js';
import type { RateDecision } from './rate-limit.js';
import { sha256Hex } from '../lib/crypto.js';
import { findPrincipalByHash, type KeyPrincipal } from '../store/api-keys.js';
import { csrfMatches, sessionPrincipal } from '../domain/team/sessions.js';
import { CSRF_HEADER, readSessionCookie } from './session-cookie.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Route needs no API key (spec: pending-data, OAuth callbacks, health, docs). */
    public?: boolean;
    /**
     * Route takes an `X-Connect-Token` in place of an API key (the connect selection routes). Without
     * that header it is an API-key route like any other: authenticated, rate limited, flags checked.
     */
    connectToken?: boolean;
    /**
     * The route changes something, whatever its method (a GET that starts a connect flow): read-only keys
     * are refused. Unset = every method but GET and HEAD writes.
     */
    write?: boolean;
    /** The route manages the whole account (API keys, invitations): profile-scoped keys are refused. */
    fullScopeKey?: boolean;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

const unauthorized = (message: string) => new AppError('unauthenticated', 'unauthorized', message);

/**
 * Resolves `Authorization: Bearer sk_...` to a Principal, or throws 401. Answers without a promise when
 * the store can (it runs on every request).
 */
export function authenticate(ctx: AppContext, header: string | undefined): Principal | Promise<Principal> {
  if (!header) throw unauthorized('Missing API key: send Authorization: Bearer <key>');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Invalid authorization scheme: use Bearer');
  const key = match[1];
  if (!/^sk_[0-9a-f]{64}$/.test(key)) throw unauthorized('Invalid API key');
  const row = findPrincipalByHash(ctx.db, sha256Hex(key));
  return row instanceof Promise ? row.then((r) => principalFor(ctx, r)) : principalFor(ctx, row);
}

function principalFor(ctx: AppContext, row: KeyPrincipal | undefined): Principal {
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
    keyScope: row.scope,
    profileIds: intersectScopes(keyScope, memberScope),
    directoryVersion: row.directory_version,
  });
}

/**
 * One onRequest hook for the API: authentication, read-only enforcement, then the per-tenant rate
 * limit. Rate-limit headers are set on every authenticated response, including errors.
 */
export function installAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('principal', null as unknown as Principal);
  // A callback hook that finishes without a promise when authentication and the rate limiter can
  // answer at once (SQLite, in-process counters): it runs on every request.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const config = request.routeOptions.config;
    if (config?.public) return done();
    if (config?.connectToken && hasConnectToken(request)) return done();
    const admit = (principal: Principal) => {
      request.principal = principal;
      if (ctx.config.rateLimitDisabled) return checkPermission(request, principal);
      const limit = planOf(principal.plan).requestsPerMinute * ctx.config.rateLimitScale;
      const decision = ctx.rateLimiter.hit(principal.tenantId, limit, ctx.clock.now());
      if (decision instanceof Promise)
        return decision.then((d) => applyRateLimit(ctx, request, reply, principal, limit, d));
      return applyRateLimit(ctx, request, reply, principal, limit, decision);
    };
    try {
      // An Authorization header always wins: programs are never affected by a cookie the client holds.
      const header = request.headers.authorization;
      const cookie = header ? null : readSessionCookie(request);
      const principal = cookie ? authenticateSession(ctx, request, cookie) : authenticate(ctx, header);
      const admitted = principal instanceof Promise ? principal.then(admit) : admit(principal);
      if (admitted instanceof Promise) admitted.then(() => done(), done);
      else done();
    } catch (error) {
      done(error as Error);
    }
  });
}

/**
 * The principal of a session cookie. A request that may change something must carry the session's CSRF
 * token in X-CSRF-Token: a cookie alone never writes (docs/dashboard.md).
 */
async function authenticateSession(ctx: AppContext, request: FastifyRequest, token: string): Promise<Principal> {
  const principal = await sessionPrincipal(ctx, token);
  const header = request.headers[CSRF_HEADER];
  const safe = ['GET', 'HEAD', 'OPTIONS'].includes(request.method) && request.routeOptions.config?.write !== true;
  if (!safe && !csrfMatches(token, typeof header === 'string' ? header : undefined)) {
    throw new AppError(
      'forbidden',
      'csrf_token_invalid',
      'A request signed in by session cookie must send its CSRF token in the X-CSRF-Token header',
    );
  }
  return principal;
}

/** A non-empty X-Connect-Token header: the caller of a connect selection route is then its flow. */
export function hasConnectToken(request: FastifyRequest): boolean {
  const token = request.headers['x-connect-token'];
  return typeof token === 'string' && token !== '';
}

function applyRateLimit(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  limit: number,
  decision: RateDecision,
): void {
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
  checkPermission(request, principal);
}

/** What the route's flags ask of the key: write permission, full scope. */
function checkPermission(request: FastifyRequest, principal: Pick<Principal, 'permission' | 'keyScope'>): void {
  const config = request.routeOptions.config;
  if (isWrite(request)) assertWriteAllowed(principal);
  if (config?.fullScopeKey) assertFullScopeKey(principal);
}

function isWrite(request: FastifyRequest): boolean {
  const flag = request.routeOptions.config?.write;
  return flag ?? (request.method !== 'GET' && request.method !== 'HEAD');
}
