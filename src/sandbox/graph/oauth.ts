import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { SimulatorState } from '../types.js';
import { graphError, sendGraphFault, settleAmbiguous } from './errors.js';
import { issueToken, liveToken, userFor, world, type GraphUser } from './world.js';

/*
 * Facebook Login on loopback (https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow):
 * - the dialog `/{version}/dialog/oauth?client_id&redirect_uri&state&scope` approves at once and
 *   redirects with `code` and `state` (`login_hint=<login>` picks the user, as in every simulator);
 * - `GET /{version}/oauth/access_token?client_id&redirect_uri&client_secret&code` answers a short-lived
 *   user token (`{access_token, token_type, expires_in}`, about two hours);
 * - `grant_type=fb_exchange_token&fb_exchange_token=<short>` answers a long-lived one (60 days)
 *   (https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived). Page
 *   tokens taken with a long-lived user token never expire; with a short-lived one they last as long.
 * Errors are Graph's: a used code is code 100 subcode 36009, a redirect_uri that differs 36008, a bad
 * client secret code 1, a dead exchange token 190.
 */

const SHORT_TTL_SEC = 2 * 3600;
const LONG_TTL_SEC = 60 * 24 * 3600;

interface CodeRecord {
  userId: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  challenge: string | null;
  used: boolean;
  expiresAt: number;
}

function codes(state: SimulatorState): Map<string, CodeRecord> {
  let c = state.data.get('graph-codes') as Map<string, CodeRecord> | undefined;
  if (!c) state.data.set('graph-codes', (c = new Map()));
  return c;
}

/** The dialog: a redirect back with a code, or 400 when a required param is missing. */
export function dialog(
  state: SimulatorState,
  q: Record<string, string | undefined>,
  reply: FastifyReply,
  now: number,
): FastifyReply {
  const missing = ['client_id', 'redirect_uri'].filter((k) => !q[k]);
  if (missing.length)
    return graphError(reply, 400, { message: `(#100) The parameter ${missing[0]} is required`, code: 100 });
  if (q.response_type && q.response_type !== 'code')
    return graphError(reply, 400, { message: '(#100) response_type must be code for a server-side login', code: 100 });
  const user: GraphUser = userFor(state, q.login_hint || `sandbox_${state.platform}`);
  const code = `AQ${randomBytes(24).toString('base64url')}`;
  codes(state).set(code, {
    userId: user.id,
    clientId: q.client_id!,
    redirectUri: q.redirect_uri!,
    scopes: (q.scope ?? '').split(/[ ,]+/).filter(Boolean),
    challenge: q.code_challenge ?? null,
    used: false,
    expiresAt: now + 10 * 60_000,
  });
  const target = new URL(q.redirect_uri!);
  target.searchParams.set('code', code);
  if (q.state) target.searchParams.set('state', q.state);
  return reply.redirect(target.toString(), 302);
}

/** `/oauth/access_token`: the code exchange or the long-lived exchange. */
export function accessToken(
  state: SimulatorState,
  p: Record<string, unknown>,
  reply: FastifyReply,
  now: number,
): unknown {
  const fault = state.faults.take('token');
  if (sendGraphFault(reply, fault)) return reply;
  const s = (k: string) => (typeof p[k] === 'string' ? (p[k] as string) : undefined);
  const clientId = s('client_id');
  if (!clientId) return graphError(reply, 400, { message: '(#100) The parameter client_id is required', code: 100 });
  if (!s('client_secret')) return graphError(reply, 400, { message: 'Error validating client secret.', code: 1 });
  if (s('grant_type') === 'fb_exchange_token') {
    const short = liveToken(state, s('fb_exchange_token'), now);
    if (!short || short.kind !== 'user' || short.clientId !== clientId) {
      return graphError(reply, 400, {
        message: 'Error validating access token: The session is invalid because the user logged out.',
        code: 190,
        subcode: 467,
      });
    }
    const long = issueToken(state, {
      kind: 'user',
      userId: short.userId,
      clientId,
      expiresAt: now + LONG_TTL_SEC * 1000,
      longLived: true,
      scopes: short.scopes,
    });
    return settleAmbiguous(reply, fault, { access_token: long.token, token_type: 'bearer', expires_in: LONG_TTL_SEC });
  }
  const code = s('code');
  const rec = code ? codes(state).get(code) : undefined;
  if (!rec || rec.expiresAt <= now)
    return graphError(reply, 400, { message: 'Invalid verification code format.', code: 100, subcode: 36007 });
  if (rec.used)
    return graphError(reply, 400, { message: 'This authorization code has been used.', code: 100, subcode: 36009 });
  if (rec.redirectUri !== s('redirect_uri')) {
    return graphError(reply, 400, {
      message:
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
      code: 100,
      subcode: 36008,
    });
  }
  if (rec.clientId !== clientId)
    return graphError(reply, 400, { message: 'Error validating verification code.', code: 100, subcode: 36008 });
  if (rec.challenge) {
    const verifier = s('code_verifier');
    const computed = verifier ? createHash('sha256').update(verifier).digest('base64url') : '';
    if (computed !== rec.challenge) return graphError(reply, 400, { message: 'Invalid code verifier.', code: 100 });
  }
  rec.used = true;
  const t = issueToken(state, {
    kind: 'user',
    userId: rec.userId,
    clientId,
    expiresAt: now + SHORT_TTL_SEC * 1000,
    longLived: false,
    scopes: rec.scopes,
  });
  return settleAmbiguous(reply, fault, { access_token: t.token, token_type: 'bearer', expires_in: SHORT_TTL_SEC });
}

/** `POST /_oauth/revoke {userId?}`: the user removed the app; every token of theirs (Page tokens too) dies. */
export function revokeAll(state: SimulatorState, userId?: string): void {
  for (const t of world(state).tokens.values()) if (!userId || t.userId === userId) t.revoked = true;
}
