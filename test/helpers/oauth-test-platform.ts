import type { FastifyInstance } from 'fastify';
import { registerOAuthRoutes, type OAuthSim } from '../../src/sandbox/oauth.js';
import type { Simulator, SimulatorState } from '../../src/sandbox/types.js';
import {
  PlatformError,
  type OAuthProvider,
  type PlatformAdapter,
  type PlatformIO,
  type TokenSet,
} from '../../src/platforms/types.js';

/**
 * A tiny OAuth platform for the connect framework's tests, independent of any real adapter: a simulator
 * built on the shared sandbox OAuth server (mounted as `reddit`) and an adapter speaking to it.
 */
export const TEST_OAUTH_PLATFORM = 'reddit' as const;

export function testOAuthSimulator(): Simulator {
  return {
    platform: TEST_OAUTH_PLATFORM,
    faultOps: ['publish', 'token'],
    register(app: FastifyInstance, state: SimulatorState) {
      const oauth: OAuthSim = registerOAuthRoutes(app, state, {
        authorizePath: '/authorize',
        tokenPath: '/token',
        accessTokenTtlSec: 3600,
        rotateRefreshTokens: false,
      });
      app.get('/me', async (request, reply) => {
        const user = oauth.userFor(request.headers.authorization);
        if (!user) return reply.status(401).send({ error: 'invalid_token' });
        return { id: user.id, name: user.username, display: user.name };
      });
      app.post('/submit', async (request, reply) => {
        const user = oauth.userFor(request.headers.authorization);
        if (!user) return reply.status(401).send({ error: 'invalid_token' });
        const text = String((request.body as any)?.text ?? '');
        const id = `t3_${state.posts.length + 1}`;
        state.posts.push({ id, text, media: [], author: user.id, createdAt: new Date().toISOString() });
        return { id };
      });
    },
  };
}

async function tokenCall(base: string, body: Record<string, string>, io: PlatformIO): Promise<TokenSet> {
  let res: Response;
  try {
    res = await io.fetch(`${base}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('client:secret').toString('base64')}`,
      },
      body: new URLSearchParams(body).toString(),
    });
  } catch (error) {
    throw new PlatformError('unavailable', (error as Error).message, { cause: error });
  }
  const json = (await res.json().catch(() => ({}))) as Record<string, any>;
  if (res.status >= 500)
    throw new PlatformError('unavailable', `token endpoint answered ${res.status}`, { status: res.status });
  if (!res.ok) {
    const revoked = json.error === 'invalid_grant';
    throw new PlatformError('auth', json.error_description ?? json.error ?? 'token error', {
      status: res.status,
      revoked,
      platformCode: json.error,
    });
  }
  return {
    accessToken: json.access_token,
    refreshToken: json.refresh_token ?? null,
    expiresAt: new Date(io.now().getTime() + Number(json.expires_in) * 1000),
    scopes: json.scope ? String(json.scope).split(' ').filter(Boolean) : null,
  };
}

export function testOAuthAdapter(sandboxUrl: string): PlatformAdapter {
  const base = `${sandboxUrl}/sandbox/${TEST_OAUTH_PLATFORM}`;
  const oauth: OAuthProvider = {
    authorizeUrl({ state, redirectUri, codeChallenge }) {
      const u = new URL(`${base}/authorize`);
      u.search = new URLSearchParams({
        response_type: 'code',
        client_id: 'client',
        redirect_uri: redirectUri,
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
        scope: 'identity submit',
      }).toString();
      return u.toString();
    },
    exchangeCode: ({ code, redirectUri, codeVerifier }, io) =>
      tokenCall(
        base,
        { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier },
        io,
      ),
    refresh: (refreshToken, io) => tokenCall(base, { grant_type: 'refresh_token', refresh_token: refreshToken }, io),
    async fetchProfile(tokens, io) {
      const res = await io.fetch(`${base}/me`, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
      if (!res.ok) throw new PlatformError('auth', `me answered ${res.status}`, { status: res.status });
      const me = (await res.json()) as { id: string; name: string; display: string };
      return {
        platformUserId: me.id,
        username: me.name,
        displayName: me.display,
        profileUrl: `https://example.test/u/${me.name}`,
      };
    },
  };
  return {
    platform: TEST_OAUTH_PLATFORM,
    oauth,
    async refreshTokens(account, io) {
      if (!account.refreshToken) throw new PlatformError('auth', 'no refresh token', { revoked: true });
      return oauth.refresh(account.refreshToken, io);
    },
    async publish(req, io) {
      const res = await io.fetch(`${base}/submit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${req.account.accessToken}` },
        body: JSON.stringify({ text: req.content }),
      });
      if (res.status === 401) throw new PlatformError('auth', 'token rejected', { status: 401 });
      const body = (await res.json()) as { id: string };
      return { platformPostId: body.id, platformPostUrl: `https://example.test/p/${body.id}` };
    },
  };
}

/** Follows redirects by hand (the browser): returns the final Location that left the sandbox, or the last response. */
export async function followAuthUrl(
  authUrl: string,
  stopAt?: string,
): Promise<{ url: string; status: number; body: string }> {
  let url = authUrl;
  for (let i = 0; i < 10; i++) {
    if (stopAt && url.startsWith(stopAt)) return { url, status: 0, body: '' };
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url).toString();
      continue;
    }
    return { url, status: res.status, body: await res.text() };
  }
  throw new Error('too many redirects');
}
