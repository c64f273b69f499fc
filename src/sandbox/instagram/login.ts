import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { graphError, sendGraphFault, settleAmbiguous } from '../graph/errors.js';
import { readParams } from '../graph/index.js';
import { issueToken, liveToken, pagesOf, userFor, world } from '../graph/world.js';
import type { SimulatorState } from '../types.js';

/*
 * Instagram Login (Business Login for Instagram,
 * https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login),
 * served beside Facebook Login on the same simulator (every host is the simulator's base):
 * - `GET /oauth/authorize` (www.instagram.com): a redirect back with a code;
 * - `POST /oauth/access_token` (api.instagram.com, form, `grant_type=authorization_code`): a short-lived
 *   token (1 hour) as `{data: [{access_token, user_id, permissions}]}`;
 * - `GET /access_token?grant_type=ig_exchange_token&client_secret&access_token` (graph.instagram.com):
 *   the long-lived token (60 days);
 * - `GET /refresh_access_token?grant_type=ig_refresh_token&access_token`: 60 new days for a long-lived
 *   token at least 24 hours old and not expired.
 * The token acts as the professional account (`me` is the IGUser). NOTE: the simulated user's account is
 * the one linked to their first Page (an Instagram Login account needs no Page on Instagram).
 */

const SHORT_TTL_MS = 3600_000;
const LONG_TTL_MS = 60 * 24 * 3600_000;
const DAY_MS = 24 * 3600_000;

interface IgCode {
  userId: string;
  igUserId: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  used: boolean;
  expiresAt: number;
}

function codes(state: SimulatorState): Map<string, IgCode> {
  let c = state.data.get('ig-login-codes') as Map<string, IgCode> | undefined;
  if (!c) state.data.set('ig-login-codes', (c = new Map()));
  return c;
}

/** When each long-lived token was issued (refresh needs it 24 hours old). */
function issued(state: SimulatorState): Map<string, number> {
  let m = state.data.get('ig-login-issued') as Map<string, number> | undefined;
  if (!m) state.data.set('ig-login-issued', (m = new Map()));
  return m;
}

const oauthError = (reply: FastifyReply, message: string, code = 400) =>
  reply.status(400).send({ error_type: 'OAuthException', code, error_message: message });

function authorize(
  state: SimulatorState,
  q: Record<string, string | undefined>,
  reply: FastifyReply,
  now: number,
): FastifyReply {
  const missing = ['client_id', 'redirect_uri', 'scope'].filter((k) => !q[k]);
  if (missing.length) return oauthError(reply, `Invalid request: ${missing[0]} is required`);
  if (q.response_type !== 'code') return oauthError(reply, 'Invalid response_type: must be code');
  const user = userFor(state, q.login_hint || `sandbox_${state.platform}`);
  const [page] = pagesOf(state, user.id);
  const code = `AQ${randomBytes(24).toString('base64url')}`;
  codes(state).set(code, {
    userId: user.id,
    igUserId: page.igUserId,
    clientId: q.client_id!,
    redirectUri: q.redirect_uri!,
    scopes: q.scope!.split(/[ ,]+/).filter(Boolean),
    used: false,
    expiresAt: now + 10 * 60_000,
  });
  const target = new URL(q.redirect_uri!);
  target.searchParams.set('code', code);
  if (q.state) target.searchParams.set('state', q.state);
  return reply.redirect(target.toString(), 302);
}

function exchangeCode(state: SimulatorState, p: Record<string, unknown>, reply: FastifyReply, now: number): unknown {
  const fault = state.faults.take('token');
  if (sendGraphFault(reply, fault)) return reply;
  const s = (k: string) => (typeof p[k] === 'string' ? (p[k] as string) : undefined);
  const missing = ['client_id', 'client_secret', 'redirect_uri', 'code'].find((k) => !s(k));
  if (missing) return oauthError(reply, `Missing required field ${missing}`, 400);
  const rec = codes(state).get(s('code')!.replace(/#_$/, ''));
  if (
    !rec ||
    rec.expiresAt <= now ||
    rec.used ||
    rec.clientId !== s('client_id') ||
    rec.redirectUri !== s('redirect_uri')
  ) {
    return oauthError(
      reply,
      'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
    );
  }
  rec.used = true;
  const t = issueToken(state, {
    kind: 'instagram',
    userId: rec.userId,
    igUserId: rec.igUserId,
    clientId: rec.clientId,
    expiresAt: now + SHORT_TTL_MS,
    longLived: false,
    scopes: rec.scopes,
  });
  return settleAmbiguous(reply, fault, {
    data: [{ access_token: t.token, user_id: rec.igUserId, permissions: rec.scopes.join(',') }],
  });
}

function longLived(
  state: SimulatorState,
  p: Record<string, unknown>,
  reply: FastifyReply,
  now: number,
  grant: 'ig_exchange_token' | 'ig_refresh_token',
): unknown {
  const fault = state.faults.take('token');
  if (sendGraphFault(reply, fault)) return reply;
  if (p.grant_type !== grant)
    return graphError(reply, 400, { message: `(#100) grant_type must be ${grant}`, code: 100 });
  if (grant === 'ig_exchange_token' && typeof p.client_secret !== 'string')
    return graphError(reply, 400, { message: '(#100) The parameter client_secret is required', code: 100 });
  const given = typeof p.access_token === 'string' ? p.access_token : undefined;
  const t = liveToken(state, given, now);
  if (!t || t.kind !== 'instagram')
    return graphError(reply, 400, {
      message: 'Error validating access token: Session has expired or is invalid',
      code: 190,
      subcode: 463,
    });
  if (grant === 'ig_exchange_token' && t.longLived)
    return graphError(reply, 400, { message: '(#100) The access token is already long-lived', code: 100 });
  if (grant === 'ig_refresh_token' && (!t.longLived || now - (issued(state).get(t.token) ?? now) < DAY_MS)) {
    return graphError(reply, 400, {
      message: '(#100) A long-lived token can be refreshed once it is at least 24 hours old',
      code: 100,
    });
  }
  const long = issueToken(state, {
    kind: 'instagram',
    userId: t.userId,
    igUserId: t.igUserId,
    clientId: t.clientId,
    expiresAt: now + LONG_TTL_MS,
    longLived: true,
    scopes: t.scopes,
  });
  issued(state).set(long.token, now);
  return settleAmbiguous(reply, fault, {
    access_token: long.token,
    token_type: 'bearer',
    expires_in: LONG_TTL_MS / 1000,
  });
}

/** The Instagram Login paths, answered before the Graph router (`unlisted`); undefined for any other path. */
export async function instagramLogin(
  state: SimulatorState,
  parts: string[],
  request: FastifyRequest,
  reply: FastifyReply,
  now: number,
): Promise<unknown> {
  const path = parts.join('/');
  if (request.method === 'GET' && path === 'oauth/authorize')
    return authorize(state, request.query as Record<string, string>, reply, now);
  if (request.method === 'GET' && (path === 'access_token' || path === 'refresh_access_token')) {
    const { params } = await readParams(request);
    return longLived(state, params, reply, now, path === 'access_token' ? 'ig_exchange_token' : 'ig_refresh_token');
  }
  if (request.method === 'POST' && path === 'oauth/access_token') {
    const { params } = await readParams(request);
    if (params.grant_type === 'authorization_code') return exchangeCode(state, params, reply, now);
  }
  return undefined;
}

/** Whether a token may act for the IG user: its Page's owner, its Page, or itself through Instagram Login. */
export function actsFor(
  state: SimulatorState,
  token: { kind: string; userId: string; pageId?: string; igUserId?: string },
  igUserId: string,
): boolean {
  const page = [...world(state).pages.values()].find((p) => p.igUserId === igUserId);
  if (!page) return false;
  return (
    (token.kind === 'user' && token.userId === page.ownerId) ||
    (token.kind === 'page' && token.pageId === page.id) ||
    (token.kind === 'instagram' && token.igUserId === igUserId)
  );
}
