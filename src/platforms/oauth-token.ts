import { parseJsonOrNull } from './io.js';
import { PlatformError, type PlatformIO, type TokenSet } from './types.js';

export interface TokenEndpointCall {
  url: string;
  headers: Record<string, string>;
  form: URLSearchParams;
  /** Name used in messages, e.g. "X", "LinkedIn". */
  platform: string;
  /** How the platform separates granted scopes in `scope`. */
  scopeSeparator: RegExp | string;
  /** The platform's own signal that the grant (code or refresh token) is gone for good. */
  isDeadGrant(status: number, body: any): boolean;
}

/**
 * One OAuth 2 token-endpoint request (code exchange or refresh), as every OAuth platform answers it:
 * tokens on success; 429 `rate_limited`; 5xx or no answer `unavailable` (a transient failure is never a
 * disconnect); a dead grant `auth` with `revoked`; 401 `auth`; anything else `rejected`.
 */
export async function requestTokens(io: PlatformIO, call: TokenEndpointCall): Promise<TokenSet> {
  let res: Response;
  let text: string;
  try {
    res = await io.fetch(call.url, { method: 'POST', headers: call.headers, body: call.form });
    text = await res.text();
  } catch (error) {
    throw new PlatformError('unavailable', `${call.platform} token endpoint unreachable (${(error as Error).message})`, {
      endpoint: call.url,
      cause: error,
    });
  }
  const body = parseJsonOrNull(text);
  const opt = { status: res.status, endpoint: call.url, raw: text.slice(0, 2000), platformCode: body?.error ?? null };
  if (res.ok && typeof body?.access_token === 'string') {
    const expiresIn = Number(body.expires_in);
    return {
      accessToken: body.access_token,
      // Some apps get no refresh token; the stored one (if any) is then kept.
      refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
      expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(io.now().getTime() + expiresIn * 1000) : null,
      scopes: typeof body.scope === 'string' ? body.scope.split(call.scopeSeparator).filter(Boolean) : null,
    };
  }
  const message = body?.error_description ?? body?.error ?? `${call.platform} token endpoint answered HTTP ${res.status}`;
  if (res.status === 429) throw new PlatformError('rate_limited', message, opt);
  if (res.status >= 500) throw new PlatformError('unavailable', message, opt);
  if (call.isDeadGrant(res.status, body)) throw new PlatformError('auth', message, { ...opt, revoked: true });
  if (res.status === 401) throw new PlatformError('auth', message, opt);
  throw new PlatformError('rejected', message, opt);
}
