/**
 * The dashboard's one way to Herald's API, same origin, signed in one of two ways: an API key sent as
 * `Authorization: Bearer <key>` (no cookie goes with it), or a password session, whose HttpOnly cookie the
 * browser sends and whose CSRF token (kept in memory only) goes in `X-CSRF-Token`. Errors carry the
 * API's message, code, field errors and request id.
 */
const KEY_STORAGE = 'herald.apiKey';

export class ApiError extends Error {
  constructor(
    message: string,
    public readonly status: number,
    public readonly code: string,
    public readonly requestId: string | null,
    public readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

let apiKey: string | null = readStoredKey();

function readStoredKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

export function currentKey(): string | null {
  return apiKey;
}

/** The password session's CSRF token (null: not signed in by password). Never stored: GET /auth/session gives it again. */
let csrfToken: string | null = null;

const SESSION_HINT = 'herald.passwordSession';

/**
 * Keeps the CSRF token in memory, and a hint (no secret) that this browser holds a session cookie, so a
 * visit without one does not ask for a session it cannot have.
 */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
  try {
    if (token) localStorage.setItem(SESSION_HINT, '1');
    else localStorage.removeItem(SESSION_HINT);
  } catch {
    /* storage disabled: the hint is only an optimisation */
  }
}

/** Whether this browser may hold a password session's cookie (it signed in by password and did not sign out). */
export function mayHavePasswordSession(): boolean {
  try {
    return localStorage.getItem(SESSION_HINT) === '1';
  } catch {
    return true;
  }
}

/** Keeps the key in memory and in this tab's session storage (gone when the tab closes). */
export function setKey(key: string | null): void {
  apiKey = key;
  try {
    if (key) sessionStorage.setItem(KEY_STORAGE, key);
    else sessionStorage.removeItem(KEY_STORAGE);
  } catch {
    /* storage disabled: memory only */
  }
}

/** Turns an error answer into an ApiError; `body` is whatever the server sent. */
export function toApiError(status: number, body: unknown, requestId: string | null): ApiError {
  const b = (body && typeof body === 'object' ? body : {}) as {
    error?: unknown;
    message?: unknown;
    code?: unknown;
    details?: { fields?: unknown };
  };
  const message =
    typeof b.error === 'string' && b.error
      ? b.error
      : typeof b.message === 'string' && b.message
        ? b.message
        : `Request failed with status ${status}`;
  const code = typeof b.code === 'string' ? b.code : 'http_' + status;
  const fields: Record<string, string[]> = {};
  const raw = b.details?.fields;
  if (raw && typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      fields[k] = Array.isArray(v) ? v.map(String) : [String(v)];
    }
  }
  return new ApiError(message, status, code, requestId, fields);
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  signal?: AbortSignal;
  /** Use this key instead of the signed-in one (the sign-in check). */
  key?: string;
}

function buildQuery(query: RequestOptions['query']): string {
  if (!query) return '';
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return s ? '?' + s : '';
}

export async function api<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const key = opts.key ?? apiKey;
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  else if (csrfToken) headers['x-csrf-token'] = csrfToken;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch('/v1' + path + buildQuery(opts.query), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
      // The session cookie goes only where no key is used (the key wins on the server anyway).
      credentials: key ? 'omit' : 'same-origin',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError('Herald could not be reached: check that the server is running', 0, 'network_error', null);
  }
  const requestId = res.headers.get('x-request-id');
  const text = await res.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (!res.ok) throw toApiError(res.status, body, requestId);
  return body as T;
}

/** PUTs a file to a presigned upload URL, reporting progress (fetch cannot report upload progress). */
export function uploadFile(url: string, file: File, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return (onProgress(1), resolve());
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON */
      }
      reject(toApiError(xhr.status, body, xhr.getResponseHeader('x-request-id')));
    };
    xhr.onerror = () => reject(new ApiError('The upload was interrupted', 0, 'network_error', null));
    xhr.send(file);
  });
}
