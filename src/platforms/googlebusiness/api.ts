import { answerFields, platformRequest, type PlatformHttp, type PlatformResponse } from '../http.js';
import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';

/** Where the Google Business adapter sends requests and which Google OAuth client it is. */
export interface GoogleBusinessOptions {
  /** Consent page host, default https://accounts.google.com (GOOGLEBUSINESS_AUTH_URL). */
  authUrl: string;
  /** Token host, default https://oauth2.googleapis.com (GOOGLEBUSINESS_TOKEN_URL). */
  tokenUrl: string;
  /** Account Management API, default https://mybusinessaccountmanagement.googleapis.com (GOOGLEBUSINESS_ACCOUNTS_URL). */
  accountsUrl: string;
  /** Business Information API, default https://mybusinessbusinessinformation.googleapis.com (GOOGLEBUSINESS_INFO_URL). */
  infoUrl: string;
  /** Place Actions API, default https://mybusinessplaceactions.googleapis.com (GOOGLEBUSINESS_PLACE_ACTIONS_URL). */
  placeActionsUrl: string;
  /** My Business Verifications API, default https://mybusinessverifications.googleapis.com (GOOGLEBUSINESS_VERIFICATIONS_URL). */
  verificationsUrl: string;
  /** Business Profile Performance API (location metrics), default https://businessprofileperformance.googleapis.com (GOOGLEBUSINESS_PERFORMANCE_URL). */
  performanceUrl: string;
  /** The v4 API (local posts, food menus, media), default https://mybusiness.googleapis.com (GOOGLEBUSINESS_API_URL). */
  apiUrl: string;
  clientId: string | null;
  clientSecret: string | null;
  /** OAuth scopes requested at connect (GOOGLEBUSINESS_SCOPES, space-separated). */
  scopes: string[];
}

/**
 * Google's errors of these APIs: `{error: {code, message, status, details}}`.
 * - 401: auth; 403 PERMISSION_DENIED: the token's user does not manage the location (rejected: reconnect
 *   or pick another location), unless the scope is missing (`insufficient`), which is auth;
 * - 429 RESOURCE_EXHAUSTED: rate_limited for a minute unless Retry-After says otherwise (the APIs' quotas
 *   are per minute: https://developers.google.com/my-business/content/limits);
 * - other 4xx final, 5xx transient.
 */
const GBP_HTTP: PlatformHttp = {
  name: 'Google Business',
  describe: ({ body, status }) => {
    const err = body?.error;
    const detail = err?.details?.[0]?.errorDetails?.[0];
    const message =
      typeof err?.message === 'string'
        ? detail?.field
          ? `${err.message} (${detail.field}: ${detail.message})`
          : err.message
        : `Google Business answered HTTP ${status}`;
    return { message, platformCode: err?.status ?? null };
  },
  classify(answer, { message, platformCode }) {
    const fields = answerFields(answer, platformCode);
    if (answer.status === 429) {
      const after = Number(answer.headers.get('retry-after'));
      return new PlatformError('rate_limited', message, {
        ...fields,
        retryAfterMs: Number.isFinite(after) && after > 0 ? after * 1000 : 60_000,
      });
    }
    if (answer.status === 403 && /insufficient/i.test(message)) {
      return new PlatformError(
        'auth',
        `${message}: reconnect the Google Business account to grant the business.manage scope`,
        fields,
      );
    }
    return null;
  },
};

export function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the Google Business account has no access token');
  return account.accessToken;
}

/** One API call with a bearer token and an optional JSON body. */
export function gbpRequest(
  io: PlatformIO,
  call: {
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    url: string;
    token: string;
    json?: unknown;
    creates?: boolean;
  },
): Promise<PlatformResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${call.token}` };
  let body: string | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json; charset=UTF-8';
    body = JSON.stringify(call.json);
  }
  return platformRequest(io, GBP_HTTP, { method: call.method, url: call.url, headers, body, creates: call.creates });
}

/** The numeric id of `locations/<n>` or `<n>`. */
export const bareLocationId = (id: string) => id.replace(/^.*locations\//, '');
