import { answerFields, platformRequest, type PlatformHttp } from './http.js';
import { PlatformError, type PlatformIO, type TokenSet } from './types.js';

/** A token endpoint's error answer: RFC 6749's fields, and Pinterest's numeric `code`. */
interface TokenErrorBody {
  error?: unknown;
  error_description?: unknown;
  code?: unknown;
}

export interface TokenEndpointCall {
  url: string;
  headers: Record<string, string>;
  form: URLSearchParams;
  /** Name used in messages, e.g. "X", "LinkedIn". */
  platform: string;
  /** How the platform separates granted scopes in `scope`. */
  scopeSeparator: RegExp | string;
  /** The platform's own signal that the grant (code or refresh token) is gone for good. */
  isDeadGrant(status: number, body: TokenErrorBody | null): boolean;
}

/** The token endpoint's error reading: RFC 6749 `{error, error_description}`; the grant check is the caller's. */
function tokenEndpointHttp(call: TokenEndpointCall): PlatformHttp {
  return {
    name: `${call.platform} token endpoint`,
    describe: ({ body, status }) => ({
      message: body?.error_description ?? body?.error ?? `${call.platform} token endpoint answered HTTP ${status}`,
      platformCode: body?.error ?? null,
    }),
    classify: (answer, { message, platformCode }) =>
      answer.status !== 429 && answer.status < 500 && call.isDeadGrant(answer.status, answer.body)
        ? new PlatformError('auth', message, { ...answerFields(answer, platformCode), revoked: true })
        : null,
  };
}

/**
 * One OAuth 2 token-endpoint request (code exchange or refresh), as every OAuth platform answers it:
 * tokens on success; 429 `rate_limited`; 5xx or no answer `unavailable` (a transient failure is never a
 * disconnect: a token request is never `ambiguous`); a dead grant `auth` with `revoked`; 401 `auth`;
 * anything else `rejected`.
 */
export async function requestTokens(io: PlatformIO, call: TokenEndpointCall): Promise<TokenSet> {
  const http = tokenEndpointHttp(call);
  const res = await platformRequest(io, http, {
    method: 'POST',
    url: call.url,
    headers: call.headers,
    body: call.form,
  });
  const body = res.body;
  if (typeof body?.access_token !== 'string') {
    throw new PlatformError('rejected', `${call.platform} token endpoint answered without an access token`, {
      status: res.status,
      endpoint: call.url,
      raw: res.raw.slice(0, 2000),
    });
  }
  const expiresIn = Number(body.expires_in);
  return {
    accessToken: body.access_token,
    // Some apps get no refresh token; the stored one (if any) is then kept.
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(io.now().getTime() + expiresIn * 1000) : null,
    scopes: typeof body.scope === 'string' ? body.scope.split(call.scopeSeparator).filter(Boolean) : null,
  };
}

/** The scopes an authorization URL asks for: the given (else configured) ones plus any extra, once each. */
export function requestedScopes(
  configured: readonly string[],
  p: { scopes?: string[]; extraScopes?: readonly string[] },
): string {
  return [...new Set([...(p.scopes ?? configured), ...(p.extraScopes ?? [])])].join(' ');
}
