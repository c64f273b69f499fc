import type { SandboxServer } from '../../../src/sandbox/server.js';

/** A clock the simulators read instead of real time: tests advance it rather than sleep. */
export function fakeClock(start = Date.parse('2026-03-02T10:00:00.000Z')) {
  let t = start;
  return {
    now: () => new Date(t),
    ms: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * One call to the sandbox through Fastify's `inject` (the same routes and hooks as over a socket, fast
 * enough to drive a simulator past a daily limit); JSON in and out unless `body` is a Buffer or a
 * URLSearchParams. `latencyMs` is asserted over a real socket in core.test.ts.
 */
export async function call(
  sandbox: SandboxServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const isForm = body instanceof URLSearchParams;
  const res = await sandbox.app.inject({
    method: method as 'GET',
    url: path,
    headers:
      body === undefined || Buffer.isBuffer(body)
        ? headers
        : { 'content-type': isForm ? 'application/x-www-form-urlencoded' : 'application/json', ...headers },
    payload:
      body === undefined ? undefined : Buffer.isBuffer(body) ? body : isForm ? body.toString() : JSON.stringify(body),
  });
  let parsed: unknown = res.body;
  try {
    parsed = res.body ? JSON.parse(res.body) : null;
  } catch {
    /* not JSON */
  }
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers))
    if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : String(v));
  return { status: res.statusCode, body: parsed, headers: h };
}

/** Calls `fn` until it answers `status` (at most `max` times); returns the answers before it and that one. */
export async function until(
  max: number,
  status: number,
  fn: (i: number) => Promise<Answer>,
): Promise<{ passed: Answer[]; stopped: Answer }> {
  const passed: Answer[] = [];
  for (let i = 0; i < max; i++) {
    const a = await fn(i);
    if (a.status === status) return { passed, stopped: a };
    passed.push(a);
  }
  throw new Error(
    `no ${status} within ${max} calls (last: ${passed.at(-1)?.status} ${JSON.stringify(passed.at(-1)?.body)})`,
  );
}

/** A bearer header from a simulator on the shared OAuth routes: consent (it approves at once), then the code exchange. */
export async function oauthToken(
  sandbox: SandboxServer,
  base: string,
  paths: { authorize: string; token: string },
  clientId: string,
  opts: { basic?: boolean; scope?: string; user?: string } = {},
): Promise<Record<string, string>> {
  const q = new URLSearchParams({
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:9/cb',
    response_type: 'code',
    state: 's',
    scope: opts.scope ?? '',
    ...(opts.user ? { login_hint: opts.user } : {}),
  });
  const consent = await call(sandbox, 'GET', `${base}${paths.authorize}?${q}`);
  const location = consent.headers.get('location');
  if (!location) throw new Error(`consent answered ${consent.status}: ${JSON.stringify(consent.body)}`);
  const code = new URL(location).searchParams.get('code')!;
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://127.0.0.1:9/cb',
    ...(opts.basic ? {} : { client_id: clientId, client_secret: 's' }),
  });
  const headers: Record<string, string> = opts.basic
    ? { authorization: `Basic ${Buffer.from(`${clientId}:s`).toString('base64')}` }
    : {};
  const res = await call(sandbox, 'POST', `${base}${paths.token}`, form, headers);
  if (res.status !== 200) throw new Error(`token answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { authorization: `Bearer ${res.body.access_token}` };
}
