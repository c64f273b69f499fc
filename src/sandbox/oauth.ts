import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hangUp, type SimulatorState } from './types.js';

/**
 * A small OAuth 2 authorization server for simulators (authorization code + PKCE S256, refresh, revoke).
 * The authorize page auto-approves: a GET of the authorize URL redirects straight back with a code, so a
 * client that follows redirects ends with the account connected. Platform simulators mount it at their
 * platform's paths and use `userFor` to check bearer tokens on their API routes.
 *
 * Test controls (under the simulator prefix, not part of any platform's protocol):
 * - `POST /_oauth/revoke` `{userId?}`: revokes every token (of that user), as a user removing the app;
 * - `POST /_oauth/faults` `{kind: 'unavailable' | 'invalid_grant', count}`: the next `count` token
 *   endpoint calls answer 503 or 400 invalid_grant;
 * - `POST /_oauth/users` `{id, username, name}`: adds a user; `login_hint=<id>` on authorize picks it.
 */

export interface OAuthUser {
  id: string;
  username: string;
  name: string;
}

export interface OAuthSimOptions {
  /** Paths relative to the simulator prefix, e.g. `/i/oauth2/authorize` and `/2/oauth2/token`. */
  authorizePath: string;
  tokenPath: string;
  revokePath?: string;
  /** Access token lifetime in seconds (default 7200). */
  accessTokenTtlSec?: number;
  /** Issue a new refresh token on refresh (rotation, default true); false keeps the old one valid and sends none. */
  rotateRefreshTokens?: boolean;
  /** Extra fields of the token response (e.g. `scope`), or the extras of each grant type. */
  tokenExtras?:
    | Record<string, unknown>
    | ((grantType: 'authorization_code' | 'refresh_token') => Record<string, unknown>);
  /**
   * The token endpoint's error body in the platform's shape (default RFC 6749 `{error, error_description}`),
   * for every error it answers: `error` is the RFC 6749 code (`invalid_grant`, `invalid_client`...).
   */
  errorBody?: (error: string, description: string) => Record<string, unknown>;
  /** The error body of a dead grant alone, when it differs from `errorBody('invalid_grant', ...)`. */
  invalidGrantBody?: (description: string) => Record<string, unknown>;
  /** HTTP status of a dead grant (default 400, as RFC 6749 says; some platforms answer 401). */
  invalidGrantStatus?: number;
  /** Client authentication only with `Authorization: Basic` (a client_id in the body is refused). */
  basicClientAuth?: boolean;
  /** Name of the client id parameter on authorize and token (default `client_id`; TikTok: `client_key`). */
  clientIdParam?: string;
  /** How the PKCE challenge encodes SHA-256 of the verifier (default `base64url`, RFC 7636; TikTok: `hex`). */
  challengeEncoding?: 'base64url' | 'hex';
  /** Token response fields that depend on the user (TikTok: `open_id`). */
  tokenExtrasFor?: (user: OAuthUser) => Record<string, unknown>;
}

export interface OAuthSim {
  /** The user a `Bearer <token>` header belongs to, or null when unknown, expired or revoked. */
  userFor(authorization: string | undefined): OAuthUser | null;
  /** The scopes granted to a live `Bearer <token>` (as asked for at authorize; a refresh keeps them), or null. */
  scopesFor(authorization: string | undefined): string[] | null;
  /** The OAuth client id a live `Bearer <token>` was issued to, or null. */
  clientFor(authorization: string | undefined): string | null;
  users(): OAuthUser[];
  addUser(user: OAuthUser): void;
  revoke(userId?: string): void;
}

interface Grant {
  userId: string;
  expiresAt: number;
  revoked: boolean;
  /** Space-separated scopes of the authorization this grant comes from. */
  scope: string;
  /** The OAuth client (app) the grant was issued to: per-app rate limits count by it. */
  clientId: string;
}

interface CodeRecord {
  userId: string;
  clientId: string;
  redirectUri: string;
  challenge: string | null;
  scope: string;
  used: boolean;
  expiresAt: number;
}

const token = (prefix: string) => prefix + randomBytes(18).toString('base64url');

/** Reads a form-encoded or JSON body (the sandbox passes unknown content types as a Buffer). */
export function formBody(request: FastifyRequest): Record<string, string> {
  const body = request.body as unknown;
  if (Buffer.isBuffer(body)) return Object.fromEntries(new URLSearchParams(body.toString('utf8')));
  if (typeof body === 'string') return Object.fromEntries(new URLSearchParams(body));
  if (body && typeof body === 'object') {
    return Object.fromEntries(Object.entries(body as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  }
  return {};
}

export function registerOAuthRoutes(app: FastifyInstance, state: SimulatorState, opts: OAuthSimOptions): OAuthSim {
  const ttl = opts.accessTokenTtlSec ?? 7200;
  const users = new Map<string, OAuthUser>();
  const defaultUser: OAuthUser = {
    id: `${state.platform}-user-1`,
    username: `sandbox_${state.platform}`,
    name: `Sandbox ${state.platform} user`,
  };
  users.set(defaultUser.id, defaultUser);
  const codes = new Map<string, CodeRecord>();
  const access = new Map<string, Grant>();
  const refresh = new Map<string, Grant>();
  const fault = { kind: null as null | 'unavailable' | 'invalid_grant', count: 0 };
  const errorBody =
    opts.errorBody ?? ((error: string, description: string) => ({ error, error_description: description }));
  const invalidGrant = opts.invalidGrantBody ?? ((d: string) => errorBody('invalid_grant', d));
  const grantStatus = opts.invalidGrantStatus ?? 400;
  const extrasFor = (grantType: 'authorization_code' | 'refresh_token') =>
    typeof opts.tokenExtras === 'function' ? opts.tokenExtras(grantType) : opts.tokenExtras;

  const sim: OAuthSim = {
    userFor(authorization) {
      const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
      const grant = m ? access.get(m[1]) : undefined;
      if (!grant || grant.revoked || grant.expiresAt <= Date.now()) return null;
      return users.get(grant.userId) ?? null;
    },
    scopesFor(authorization) {
      const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
      const grant = m ? access.get(m[1]) : undefined;
      if (!grant || grant.revoked || grant.expiresAt <= Date.now()) return null;
      return grant.scope.split(/[\s,]+/).filter(Boolean);
    },
    clientFor(authorization) {
      const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
      const grant = m ? access.get(m[1]) : undefined;
      return grant && !grant.revoked && grant.expiresAt > Date.now() ? grant.clientId : null;
    },
    users: () => [...users.values()],
    addUser: (u) => void users.set(u.id, u),
    revoke(userId) {
      for (const g of [...access.values(), ...refresh.values()]) if (!userId || g.userId === userId) g.revoked = true;
    },
  };
  state.data.set('oauth', sim);

  app.get(opts.authorizePath, async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    const clientParam = opts.clientIdParam ?? 'client_id';
    const missing = ['response_type', clientParam, 'redirect_uri', 'state'].filter((k) => !q[k]);
    if (missing.length)
      return reply.status(400).send({ error: 'invalid_request', error_description: `missing ${missing.join(', ')}` });
    if (q.response_type !== 'code') return reply.status(400).send({ error: 'unsupported_response_type' });
    if (q.code_challenge && q.code_challenge_method !== 'S256') {
      return reply
        .status(400)
        .send({ error: 'invalid_request', error_description: 'code_challenge_method must be S256' });
    }
    const user = users.get(q.login_hint ?? '') ?? defaultUser;
    const code = token('code_');
    codes.set(code, {
      userId: user.id,
      clientId: q[clientParam]!,
      redirectUri: q.redirect_uri!,
      challenge: q.code_challenge ?? null,
      scope: q.scope ?? '',
      used: false,
      expiresAt: Date.now() + 10 * 60_000,
    });
    const target = new URL(q.redirect_uri!);
    target.searchParams.set('code', code);
    target.searchParams.set('state', q.state!);
    return reply.redirect(target.toString(), 302);
  });

  const issue = (
    userId: string,
    clientId: string,
    withRefresh: boolean,
    scope: string,
    grantType: 'authorization_code' | 'refresh_token',
    granted = scope,
  ) => {
    const accessToken = token('at_');
    access.set(accessToken, { userId, expiresAt: Date.now() + ttl * 1000, revoked: false, scope: granted, clientId });
    const user = users.get(userId);
    const out: Record<string, unknown> = {
      token_type: 'bearer',
      access_token: accessToken,
      expires_in: ttl,
      scope,
      ...extrasFor(grantType),
      ...(user && opts.tokenExtrasFor ? opts.tokenExtrasFor(user) : {}),
    };
    if (withRefresh) {
      const refreshToken = token('rt_');
      refresh.set(refreshToken, {
        userId,
        expiresAt: Number.MAX_SAFE_INTEGER,
        revoked: false,
        scope: granted,
        clientId,
      });
      out.refresh_token = refreshToken;
    }
    return out;
  };

  app.post(opts.tokenPath, async (request, reply: FastifyReply) => {
    // `POST /_faults {op: 'token'}`: ambiguous issues the tokens and loses the answer.
    const opFault = state.faults.take('token');
    if (opFault === 'rate_limited') return reply.status(429).send(errorBody('rate_limited', 'Too many requests'));
    if (opFault === 'unavailable')
      return reply.status(503).send(errorBody('temporarily_unavailable', 'The service is temporarily unavailable'));
    if (opFault === 'auth' || opFault === 'rejected')
      return reply.status(grantStatus).send(invalidGrant('Token has been expired or revoked.'));
    const answer = await exchange(request, reply);
    if (opFault === 'ambiguous' && reply.statusCode < 400) return hangUp(reply);
    return answer;
  });

  const exchange = async (request: FastifyRequest, reply: FastifyReply) => {
    if (fault.count > 0) {
      fault.count--;
      if (fault.kind === 'unavailable')
        return reply.status(503).send(errorBody('temporarily_unavailable', 'The service is temporarily unavailable'));
      return reply.status(grantStatus).send(invalidGrant('Token has been expired or revoked.'));
    }
    const body = formBody(request);
    const basic = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    const basicId = basic ? Buffer.from(basic[1], 'base64').toString('utf8').split(':')[0] : undefined;
    const clientId = opts.basicClientAuth ? basicId : (body[opts.clientIdParam ?? 'client_id'] ?? basicId);
    if (!clientId) return reply.status(401).send(errorBody('invalid_client', 'client authentication failed'));
    if (body.grant_type === 'authorization_code') {
      const rec = body.code ? codes.get(body.code) : undefined;
      if (!rec || rec.used || rec.expiresAt <= Date.now())
        return reply.status(grantStatus).send(invalidGrant('authorization code is invalid or used'));
      if (rec.redirectUri !== body.redirect_uri)
        return reply.status(grantStatus).send(invalidGrant('redirect_uri does not match'));
      if (rec.clientId !== clientId) return reply.status(grantStatus).send(invalidGrant('client_id does not match'));
      if (rec.challenge) {
        const computed = body.code_verifier
          ? createHash('sha256')
              .update(body.code_verifier)
              .digest(opts.challengeEncoding ?? 'base64url')
          : '';
        if (computed !== rec.challenge)
          return reply.status(grantStatus).send(invalidGrant('code_verifier does not match the challenge'));
      }
      rec.used = true;
      return issue(rec.userId, rec.clientId, true, rec.scope, 'authorization_code');
    }
    if (body.grant_type === 'refresh_token') {
      const grant = body.refresh_token ? refresh.get(body.refresh_token) : undefined;
      if (!grant || grant.revoked)
        return reply.status(grantStatus).send(invalidGrant('Token has been expired or revoked.'));
      const rotate = opts.rotateRefreshTokens ?? true;
      if (rotate) grant.revoked = true;
      return issue(grant.userId, grant.clientId, rotate, '', 'refresh_token', grant.scope);
    }
    return reply
      .status(400)
      .send(errorBody('unsupported_grant_type', `grant_type ${body.grant_type ?? '(none)'} is not supported`));
  };

  if (opts.revokePath) {
    app.post(opts.revokePath, async (request) => {
      const body = formBody(request);
      const g = access.get(body.token ?? '') ?? refresh.get(body.token ?? '');
      if (g) g.revoked = true;
      return {};
    });
  }

  app.post('/_oauth/revoke', async (request) => {
    const { userId } = (request.body ?? {}) as { userId?: string };
    sim.revoke(userId);
    return { ok: true };
  });
  app.post('/_oauth/faults', async (request, reply) => {
    const { kind, count } = (request.body ?? {}) as { kind?: string; count?: number };
    if ((kind !== 'unavailable' && kind !== 'invalid_grant') || !Number.isInteger(count) || (count as number) < 0) {
      return reply.status(400).send({ error: 'kind must be unavailable or invalid_grant and count an integer >= 0' });
    }
    fault.kind = kind;
    fault.count = count as number;
    return { ok: true };
  });
  app.post('/_oauth/users', async (request, reply) => {
    const u = (request.body ?? {}) as Partial<OAuthUser>;
    if (!u.id || !u.username) return reply.status(400).send({ error: 'id and username are required' });
    sim.addUser({ id: u.id, username: u.username, name: u.name ?? u.username });
    return { ok: true };
  });
  return sim;
}
