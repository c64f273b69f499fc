import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { randomToken, xStore } from './store.js';

/** Access tokens live two hours, as on X; authorization codes 30 seconds. */
const ACCESS_TTL_SECS = 7200;
const CODE_TTL_MS = 30_000;
/** The user object's `subscription_type` values (X's OpenAPI document). */
const SUBSCRIPTION_TYPES = ['None', 'Basic', 'Premium', 'PremiumPlus'];

function formBody(body: unknown): URLSearchParams {
  if (Buffer.isBuffer(body)) return new URLSearchParams(body.toString('utf8'));
  if (typeof body === 'string') return new URLSearchParams(body);
  if (body && typeof body === 'object') return new URLSearchParams(body as Record<string, string>);
  return new URLSearchParams();
}

function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply.status(status).send({ error, error_description: description });
}

/**
 * X's OAuth 2 endpoints: the consent page (auto-approved: it redirects straight back with a code),
 * the token endpoint (authorization_code with PKCE, refresh_token with rotation) and revoke.
 * X-specific rather than the shared `registerOAuthRoutes` because X user ids must be numeric (the
 * OpenAPI document checks them) and X answers a dead grant with `invalid_request`; the same test
 * controls are offered: `POST /_oauth/revoke {userId?}`, `/_oauth/faults {kind, count}`,
 * `/_oauth/users {id, username, name}` and `login_hint=<id>` on the consent page.
 */
export function registerXOAuth(app: FastifyInstance, state: SimulatorState, now: () => number): OAuthSim {
  const tokenFault = { kind: null as null | 'unavailable' | 'invalid_grant', count: 0 };
  const sim: OAuthSim = {
    userFor(authorization) {
      const store = xStore(state);
      const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
      const entry = m ? store.accessTokens.get(m[1]) : undefined;
      const grant = entry ? store.grants.get(entry.grantId) : undefined;
      if (!entry || !grant || grant.revoked || entry.expiresAt <= now()) return null;
      return store.users.get(grant.userId) ?? null;
    },
    scopesFor(authorization) {
      const store = xStore(state);
      const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
      const entry = m ? store.accessTokens.get(m[1]) : undefined;
      const grant = entry ? store.grants.get(entry.grantId) : undefined;
      if (!entry || !grant || grant.revoked || entry.expiresAt <= now()) return null;
      return [...grant.scopes];
    },
    clientFor(authorization) {
      const store = xStore(state);
      const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
      const entry = m ? store.accessTokens.get(m[1]) : undefined;
      const grant = entry ? store.grants.get(entry.grantId) : undefined;
      if (!entry || !grant || grant.revoked || entry.expiresAt <= now()) return null;
      return grant.clientId;
    },
    users: () => [...xStore(state).users.values()],
    addUser: (u: OAuthUser) => void xStore(state).users.set(u.id, { ...u }),
    revoke(userId) {
      for (const g of xStore(state).grants.values()) if (!userId || g.userId === userId) g.revoked = true;
    },
  };
  state.data.set('oauth', sim);

  app.post('/_oauth/revoke', async (request) => {
    sim.revoke(((request.body ?? {}) as { userId?: string }).userId);
    return { ok: true };
  });
  app.post('/_oauth/faults', async (request, reply) => {
    const { kind, count } = (request.body ?? {}) as { kind?: string; count?: number };
    if ((kind !== 'unavailable' && kind !== 'invalid_grant') || !Number.isInteger(count) || (count as number) < 0) {
      return reply.status(400).send({ error: 'kind must be unavailable or invalid_grant and count an integer >= 0' });
    }
    tokenFault.kind = kind;
    tokenFault.count = count as number;
    return { ok: true };
  });
  app.post('/_oauth/users', async (request, reply) => {
    const u = (request.body ?? {}) as Partial<OAuthUser> & { subscriptionType?: unknown };
    if (!u.id || !/^\d{1,19}$/.test(u.id) || !u.username)
      return reply.status(400).send({ error: 'a numeric id and a username are required' });
    if (u.subscriptionType !== undefined && !SUBSCRIPTION_TYPES.includes(String(u.subscriptionType)))
      return reply.status(400).send({ error: `subscriptionType must be one of ${SUBSCRIPTION_TYPES.join(', ')}` });
    sim.addUser({ id: u.id, username: u.username, name: u.name ?? u.username });
    // The user's X subscription (X's `subscription_type`): editing posts needs a paid one.
    if (u.subscriptionType !== undefined) xStore(state).users.get(u.id)!.subscriptionType = String(u.subscriptionType);
    return { ok: true };
  });
  app.get<{ Querystring: Record<string, string> }>('/i/oauth2/authorize', async (request, reply) => {
    const q = request.query;
    const missing = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge'].filter(
      (k) => !q[k],
    );
    if (missing.length)
      return reply.status(400).send({ error: 'invalid_request', error_description: `missing ${missing.join(', ')}` });
    if (q.response_type !== 'code')
      return reply
        .status(400)
        .send({ error: 'unsupported_response_type', error_description: 'response_type must be code' });
    const method = q.code_challenge_method ?? 'plain';
    if (!['S256', 'plain'].includes(method))
      return reply
        .status(400)
        .send({ error: 'invalid_request', error_description: 'code_challenge_method must be S256 or plain' });
    if (q.state.length > 500)
      return reply
        .status(400)
        .send({ error: 'invalid_request', error_description: 'state is longer than 500 characters' });
    let redirect: URL;
    try {
      redirect = new URL(q.redirect_uri);
    } catch {
      return reply.status(400).send({ error: 'invalid_request', error_description: 'redirect_uri is not a URL' });
    }
    const store = xStore(state);
    const userId = q.login_hint && store.users.has(q.login_hint) ? q.login_hint : store.currentUserId;
    const code = randomToken();
    store.codes.set(code, {
      clientId: q.client_id,
      redirectUri: q.redirect_uri,
      challenge: q.code_challenge,
      method,
      scopes: q.scope.split(/[ +]/).filter(Boolean),
      userId,
      expiresAt: now() + CODE_TTL_MS,
    });
    redirect.searchParams.set('state', q.state);
    redirect.searchParams.set('code', code);
    return reply.redirect(redirect.toString(), 302);
  });

  app.post('/2/oauth2/token', async (request, reply) => {
    const fault = state.faults.take('token');
    if (fault === 'rate_limited')
      return reply
        .status(429)
        .send({ title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 });
    if (fault === 'unavailable') return problemUnavailable(reply);
    if (fault === 'auth' || fault === 'rejected')
      return oauthError(reply, 400, 'invalid_request', 'Value passed for the token was invalid.');
    if (tokenFault.count > 0) {
      tokenFault.count--;
      if (tokenFault.kind === 'unavailable') return problemUnavailable(reply);
      return oauthError(reply, 400, 'invalid_request', 'Value passed for the token was invalid.');
    }
    const form = formBody(request.body);
    // Confidential clients use Basic; public clients put client_id in the body.
    let clientId = form.get('client_id');
    const auth = request.headers.authorization ?? '';
    if (auth.startsWith('Basic ')) {
      const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8');
      clientId = decoded.split(':')[0] || null;
    }
    if (!clientId) return oauthError(reply, 401, 'unauthorized_client', 'Missing valid authorization header');
    const store = xStore(state);
    const issue = (grantId: string, scopes: string[]) => {
      const accessToken = randomToken();
      store.accessTokens.set(accessToken, { grantId, expiresAt: now() + ACCESS_TTL_SECS * 1000 });
      const body: Record<string, unknown> = {
        token_type: 'bearer',
        expires_in: ACCESS_TTL_SECS,
        access_token: accessToken,
        scope: scopes.join(' '),
      };
      if (scopes.includes('offline.access')) {
        const refreshToken = randomToken();
        store.refreshTokens.set(refreshToken, { grantId });
        body.refresh_token = refreshToken;
      }
      // The ambiguous fault: the tokens are issued (a rotated refresh token is spent), the answer is lost.
      if (fault === 'ambiguous') return hangUp(reply);
      return reply.send(body);
    };
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') {
      const code = store.codes.get(form.get('code') ?? '');
      if (
        !code ||
        code.expiresAt < now() ||
        code.clientId !== clientId ||
        code.redirectUri !== form.get('redirect_uri')
      ) {
        return oauthError(reply, 400, 'invalid_request', 'Value passed for the authorization code was invalid.');
      }
      const verifier = form.get('code_verifier') ?? '';
      const expected = code.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
      if (expected !== code.challenge)
        return oauthError(reply, 400, 'invalid_request', 'Value passed for the code verifier was invalid.');
      store.codes.delete(form.get('code')!);
      const grantId = randomToken();
      store.grants.set(grantId, { id: grantId, userId: code.userId, clientId, scopes: code.scopes, revoked: false });
      return issue(grantId, code.scopes);
    }
    if (grantType === 'refresh_token') {
      const refreshToken = form.get('refresh_token') ?? '';
      const entry = store.refreshTokens.get(refreshToken);
      const grant = entry ? store.grants.get(entry.grantId) : undefined;
      if (!entry || !grant || grant.revoked || grant.clientId !== clientId) {
        return oauthError(reply, 400, 'invalid_request', 'Value passed for the token was invalid.');
      }
      // Refresh tokens rotate: the old one stops working.
      store.refreshTokens.delete(refreshToken);
      return issue(grant.id, grant.scopes);
    }
    return oauthError(reply, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  });

  app.post('/2/oauth2/revoke', async (request, reply) => {
    const form = formBody(request.body);
    const token = form.get('token') ?? '';
    const store = xStore(state);
    const grantId = store.accessTokens.get(token)?.grantId ?? store.refreshTokens.get(token)?.grantId;
    // Revoking either token ends the whole grant, as when the user removes the app.
    const grant = grantId ? store.grants.get(grantId) : undefined;
    if (grant) grant.revoked = true;
    return reply.send({ revoked: true });
  });
  return sim;
}

function problemUnavailable(reply: FastifyReply) {
  return reply
    .status(503)
    .send({ title: 'Service Unavailable', detail: 'Service Unavailable', type: 'about:blank', status: 503 });
}
