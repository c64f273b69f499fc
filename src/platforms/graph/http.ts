import { answerFields, platformRequest, type PlatformHttp, type PlatformResponse } from '../http.js';
import { PlatformError, type PlatformIO } from '../types.js';

/*
 * Meta's Graph API as every Graph platform meets it (Facebook Pages, Instagram through Facebook Login):
 * the error shape and what each code means, and one call with the token in a header. Each platform names
 * itself and what to tell the operator (which setting, which permissions).
 */

/** Throttling codes: app (4), user (17), Page (32), API-specific (613), business use case (80001-80014). */
const THROTTLED = new Set([4, 17, 32, 613, 80001, 80002, 80003, 80004, 80005, 80006, 80008, 80009, 80014]);
/** code 190 subcodes that mean the grant is gone for good: app removed, password changed, logged out. */
const REVOKED_SUBCODES = new Set([458, 459, 460, 464, 467]);

/** Minutes Graph says it needs before calls go through again (`X-Business-Use-Case-Usage` / `X-App-Usage`). */
function regainMs(headers: Headers): number | null {
  for (const name of ['x-business-use-case-usage', 'x-ad-account-usage']) {
    const raw = headers.get(name);
    if (!raw) continue;
    try {
      const parsed = JSON.parse(raw) as Record<string, { estimated_time_to_regain_access?: number }[]>;
      const minutes = Math.max(
        0,
        ...Object.values(parsed)
          .flat()
          .map((u) => Number(u.estimated_time_to_regain_access) || 0),
      );
      if (minutes > 0) return minutes * 60_000;
    } catch {
      // A header we cannot read says nothing.
    }
  }
  return null;
}

export interface GraphHttpNames {
  /** "Facebook", "Instagram". */
  name: string;
  /** Said after a permission error: what to reconnect and grant. */
  reconnect: string;
  /** The setting that picks the Graph version (FACEBOOK_GRAPH_VERSION). */
  versionSetting: string;
  /** Codes of this platform's own, classified before Graph's common ones (null: go on). */
  classify?(
    code: number,
    subcode: number,
    message: string,
    fields: ReturnType<typeof answerFields>,
  ): PlatformError | null;
}

/**
 * Graph's errors (https://developers.facebook.com/docs/graph-api/guides/error-handling):
 * `{error: {message, type, code, error_subcode, is_transient, fbtrace_id}}`, mostly with HTTP 400.
 * - 190 (and 102) is a token problem: `auth`, revoked for subcodes 458/459/460/464/467;
 * - 10 and 200-299 are permissions (a lost Page role, a permission not granted): `auth`, reconnect;
 * - 4, 17, 32, 613, 8000x and 1390008 (posting too fast) are throttling: `rate_limited`;
 * - 1, 2 and `is_transient` are transient: `unavailable`;
 * - 2635 is a Graph version Meta no longer serves (a configuration problem): `rejected`, saying so;
 * - anything else 4xx is final (`rejected`: 100 invalid parameter, 368 blocked, 1366046 photo...).
 */
export function graphHttp(names: GraphHttpNames): PlatformHttp {
  return {
    name: names.name,
    describe: ({ body, status }) => {
      const err = body?.error;
      const message =
        typeof err?.error_user_msg === 'string' && err.error_user_msg
          ? `${err.message} (${err.error_user_msg})`
          : (err?.message ?? body?.debug_info?.message ?? `${names.name} answered HTTP ${status}`);
      const code =
        err?.code !== undefined
          ? `${err.code}${err.error_subcode ? `/${err.error_subcode}` : ''}`
          : (body?.debug_info?.type ?? null);
      return { message, platformCode: code };
    },
    classify(answer, { message, platformCode }) {
      const err = answer.body?.error;
      const fields = answerFields(answer, platformCode);
      const code = Number(err?.code);
      const subcode = Number(err?.error_subcode);
      if (!err) return null;
      const own = names.classify?.(code, subcode, message, fields);
      if (own) return own;
      if (code === 190 || code === 102)
        return new PlatformError('auth', message, { ...fields, revoked: REVOKED_SUBCODES.has(subcode) });
      if (code === 10 || (code >= 200 && code <= 299) || subcode === 1404078)
        return new PlatformError('auth', `${message}: ${names.reconnect}`, fields);
      if (THROTTLED.has(code) || subcode === 1390008) {
        const after = Number(answer.headers.get('retry-after'));
        return new PlatformError('rate_limited', message, {
          ...fields,
          retryAfterMs:
            regainMs(answer.headers) ??
            (Number.isFinite(after) && after > 0 ? after * 1000 : code === 4 ? 3_600_000 : 60_000),
        });
      }
      if (code === 2635)
        return new PlatformError(
          'rejected',
          `${message}: set ${names.versionSetting} to a Graph API version Meta serves (for example v24.0)`,
          fields,
        );
      if (code === 1 || code === 2 || err.is_transient === true)
        return new PlatformError('unavailable', message, fields);
      return null;
    },
  };
}

export interface GraphCall {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  token: string;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  body?: Uint8Array;
  creates?: boolean;
}

/** One Graph call with the token in `Authorization: OAuth` (never in the URL, which logs keep) and a JSON body. */
export function graphRequest(io: PlatformIO, http: PlatformHttp, call: GraphCall): Promise<PlatformResponse> {
  const headers: Record<string, string> = {
    ...(call.token ? { authorization: `OAuth ${call.token}` } : {}),
    ...call.headers,
  };
  let body: string | Uint8Array | FormData | undefined = call.body ?? call.form;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  }
  return platformRequest(io, http, { method: call.method, url: call.url, headers, body, creates: call.creates });
}
