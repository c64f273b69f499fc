import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorState } from '../types.js';
import { graphError, loseAnswer, newToken, params, thStore, userFor, type ThToken, type ThUser } from './store.js';

/*
 * Threads' OAuth: https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
 * - `GET /oauth/authorize` (threads.net) approves at once and redirects with `code` (docs/sandbox.md);
 * - `POST /oauth/access_token` trades the code for a short-lived token (1 hour): `{access_token, user_id}`;
 * - `GET /access_token?grant_type=th_exchange_token&client_secret&access_token` trades a short-lived
 *   token for a long-lived one (60 days): `{access_token, token_type, expires_in}`;
 * - `GET /refresh_access_token?grant_type=th_refresh_token&access_token` gives a long-lived token that
 *   is at least 24 hours old and unexpired a new 60 days (the old token keeps its own expiry);
 * - `GET /oauth/access_token?grant_type=client_credentials` is the app token.
 * Every API call carries the token as `access_token` in the query (as Meta's Postman collection sends
 * it) or as `Authorization: Bearer`.
 *
 * Test controls: `POST /_oauth/revoke {userId?}` (a login or a Threads user id), `POST /_oauth/faults
 * {kind: 'unavailable' | 'invalid_grant', count}`, `POST /_oauth/users {id, username?, name?}`.
 */

const SHORT_LIVED_SEC = 3600;
const LONG_LIVED_SEC = 60 * 86_400;
/** A long-lived token can be refreshed once it is a day old. */
const REFRESH_MIN_AGE_MS = 86_400_000;

export interface ThreadsAuth {
  /**
   * The user token's record, or null with the answer already sent (code 190) when it is missing, unknown,
   * expired or revoked, or an app token.
   */
  userOfToken(token: string | null, reply: FastifyReply): ThToken | null;
}

function bearer(request: FastifyRequest): string | null {
  const q = (request.query ?? {}) as Record<string, unknown>;
  if (typeof q.access_token === 'string' && q.access_token) return q.access_token;
  const m = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (m) return m[1];
  const p = params(request);
  return p.access_token || null;
}

export function registerThreadsOAuth(app: FastifyInstance, state: SimulatorState, now: () => number): ThreadsAuth {
  const store = () => thStore(state);

  const issue = (user: ThUser, kind: ThToken['kind'], ttlSec: number, scopes: string[]) => {
    const token = newToken(kind);
    store().tokens.set(token, {
      user,
      kind,
      issuedAt: now(),
      expiresAt: now() + ttlSec * 1000,
      revoked: false,
      scopes,
    });
    return token;
  };

  /** A token that is usable, else the Graph 190 answer (subcode 463 expired, 460 revoked). */
  const live = (token: string | null, reply: FastifyReply): ThToken | null => {
    const t = token ? store().tokens.get(token) : undefined;
    if (!t) return (graphError(reply, 400, 190, 'Invalid OAuth access token - Cannot parse access token'), null);
    if (t.revoked)
      return (
        graphError(reply, 400, 190, 'Error validating access token: The user has not authorized application.', {
          subcode: 460,
        }),
        null
      );
    if (t.expiresAt <= now())
      return (
        graphError(reply, 400, 190, 'Error validating access token: Session has expired.', { subcode: 463 }), null
      );
    return t;
  };

  /**
   * The token endpoint's faults: `_faults {op: 'token'}` and `_oauth/faults`. Answers and returns true
   * when one applies; `ambiguous` is returned for the caller to lose the answer after the work.
   */
  const tokenFault = (reply: FastifyReply): boolean | 'ambiguous' => {
    const fault = state.faults.take('token');
    const legacy = store().tokenFault;
    if (legacy.count > 0) {
      legacy.count--;
      if (legacy.kind === 'unavailable')
        return (graphError(reply, 500, 2, 'Service temporarily unavailable', { type: 'OAuthException' }), true);
      return (
        graphError(reply, 400, 190, 'Error validating access token: The user has not authorized application.', {
          subcode: 460,
        }),
        true
      );
    }
    if (fault === 'rate_limited')
      return (graphError(reply, 400, 4, '(#4) Application request limit reached', { type: 'OAuthException' }), true);
    if (fault === 'unavailable')
      return (graphError(reply, 500, 2, 'Service temporarily unavailable', { type: 'OAuthException' }), true);
    if (fault === 'auth' || fault === 'rejected')
      return (
        graphError(reply, 400, 190, 'Error validating access token: Session has expired.', { subcode: 463 }), true
      );
    return fault === 'ambiguous' ? 'ambiguous' : false;
  };

  app.get('/oauth/authorize', async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    const missing = ['client_id', 'redirect_uri', 'scope', 'response_type'].filter((k) => !q[k]);
    if (missing.length) return graphError(reply, 400, 100, `(#100) Missing required parameter: ${missing.join(', ')}`);
    if (q.response_type !== 'code') return graphError(reply, 400, 100, '(#100) response_type must be code');
    const scopes = q.scope!.split(',');
    // threads_basic is required for every Threads endpoint.
    if (!scopes.includes('threads_basic'))
      return graphError(reply, 400, 100, '(#100) The threads_basic permission is required');
    const user = userFor(store(), q.login_hint || 'threads-user-1');
    const code = `AQ${randomBytes(24).toString('base64url')}`;
    store().codes.set(code, {
      user,
      clientId: q.client_id!,
      redirectUri: q.redirect_uri!,
      used: false,
      expiresAt: now() + 10 * 60_000,
      scopes,
    });
    const target = new URL(q.redirect_uri!);
    target.searchParams.set('code', code);
    if (q.state) target.searchParams.set('state', q.state);
    return reply.redirect(target.toString(), 302);
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/oauth/access_token',
    handler: async (request, reply) => {
      const p = params(request);
      if (p.grant_type === 'client_credentials') {
        if (!p.client_id || !p.client_secret)
          return graphError(reply, 400, 101, 'Error validating application. Missing client_id or client_secret.', {
            type: 'OAuthException',
          });
        return { access_token: `TH|${p.client_id}|${randomBytes(12).toString('hex')}`, token_type: 'bearer' };
      }
      if (request.method !== 'POST')
        return graphError(reply, 400, 100, '(#100) The authorization code must be exchanged with POST');
      const faulted = tokenFault(reply);
      if (faulted === true) return reply;
      const missing = ['client_id', 'client_secret', 'code', 'grant_type', 'redirect_uri'].filter((k) => !p[k]);
      if (missing.length)
        return graphError(reply, 400, 100, `(#100) Missing required parameter: ${missing.join(', ')}`);
      if (p.grant_type !== 'authorization_code') return graphError(reply, 400, 100, '(#100) Unsupported grant_type');
      const rec = store().codes.get(p.code);
      if (!rec || rec.used || rec.expiresAt <= now())
        return graphError(reply, 400, 100, 'Invalid verification code format.', {
          type: 'OAuthException',
          subcode: 36007,
        });
      if (rec.redirectUri !== p.redirect_uri)
        return graphError(
          reply,
          400,
          100,
          'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
          { type: 'OAuthException' },
        );
      if (rec.clientId !== p.client_id)
        return graphError(reply, 400, 101, 'Error validating client secret.', { type: 'OAuthException' });
      rec.used = true;
      const answer = { access_token: issue(rec.user, 'short', SHORT_LIVED_SEC, rec.scopes), user_id: rec.user.id };
      if (faulted === 'ambiguous' && loseAnswer(reply, 'ambiguous')) return reply;
      return answer;
    },
  });

  app.get('/access_token', async (request, reply) => {
    const p = params(request);
    if (p.grant_type !== 'th_exchange_token')
      return graphError(reply, 400, 100, '(#100) grant_type must be th_exchange_token');
    if (!p.client_secret) return graphError(reply, 400, 100, '(#100) Missing required parameter: client_secret');
    const faulted = tokenFault(reply);
    if (faulted === true) return reply;
    const t = live(bearer(request), reply);
    if (!t) return reply;
    if (t.kind !== 'short')
      return graphError(reply, 400, 100, '(#100) Only a short-lived token can be exchanged for a long-lived one');
    const answer = {
      access_token: issue(t.user, 'long', LONG_LIVED_SEC, t.scopes),
      token_type: 'bearer',
      expires_in: LONG_LIVED_SEC,
    };
    if (faulted === 'ambiguous' && loseAnswer(reply, 'ambiguous')) return reply;
    return answer;
  });

  app.get('/refresh_access_token', async (request, reply) => {
    const p = params(request);
    if (p.grant_type !== 'th_refresh_token')
      return graphError(reply, 400, 100, '(#100) grant_type must be th_refresh_token');
    const faulted = tokenFault(reply);
    if (faulted === true) return reply;
    const t = live(bearer(request), reply);
    if (!t) return reply;
    if (t.kind !== 'long') return graphError(reply, 400, 100, '(#100) Only a long-lived token can be refreshed');
    if (now() - t.issuedAt < REFRESH_MIN_AGE_MS)
      return graphError(reply, 400, 100, '(#100) A long-lived token can be refreshed once it is at least 24 hours old');
    const answer = {
      access_token: issue(t.user, 'long', LONG_LIVED_SEC, t.scopes),
      token_type: 'bearer',
      expires_in: LONG_LIVED_SEC,
    };
    if (faulted === 'ambiguous' && loseAnswer(reply, 'ambiguous')) return reply;
    return answer;
  });

  app.post('/_oauth/revoke', async (request) => {
    const { userId } = (request.body ?? {}) as { userId?: string };
    for (const t of store().tokens.values())
      if (!userId || t.user.login === userId || t.user.id === userId) t.revoked = true;
    return { ok: true };
  });
  app.post('/_oauth/faults', async (request, reply) => {
    const { kind, count } = (request.body ?? {}) as { kind?: string; count?: number };
    if ((kind !== 'unavailable' && kind !== 'invalid_grant') || !Number.isInteger(count) || (count as number) < 0) {
      return reply.status(400).send({ error: 'kind must be unavailable or invalid_grant and count an integer >= 0' });
    }
    store().tokenFault = { kind, count: count as number };
    return { ok: true };
  });
  app.post('/_oauth/users', async (request, reply) => {
    const u = (request.body ?? {}) as { id?: string; username?: string; name?: string };
    if (!u.id) return reply.status(400).send({ error: 'id is required' });
    const user = userFor(store(), u.id, u.name);
    if (u.username) user.username = u.username;
    if (u.name) user.name = u.name;
    return { ok: true, user };
  });

  return {
    userOfToken(token, reply) {
      const t = live(token, reply);
      if (!t) return null;
      if (t.kind === 'app') return (graphError(reply, 400, 190, 'This endpoint requires a user access token'), null);
      return t;
    },
  };
}
