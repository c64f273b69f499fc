import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_ATTEMPTS_PER_EMAIL } from '../../src/domain/team/sessions.js';
import { setPasswordByEmail } from '../../src/domain/team/sessions.js';
import { sha256Hex } from '../../src/lib/crypto.js';
import { verifyPassword } from '../../src/lib/password.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

/*
 * Sign-in for people: email and password give a session cookie (HttpOnly, SameSite=Strict, Secure behind
 * https) whose CSRF token must come with every write; logout ends it on the server; invitations set a
 * password and sign in; attempts are limited.
 */

let env: TestEnv;
let seq = 0;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  env = await createTestEnv({ now: '2026-03-02T09:00:00.000Z' });
});
afterAll(async () => env?.close());

/** An owner with a password, and the email it signs in with. */
async function ownerWithPassword(password = PASSWORD) {
  const owner = await env.createUser({ plan: 'build' });
  const email = (await env.request(owner.apiKey, 'GET', '/v1/users')).body.users[0].email as string;
  await setPasswordByEmail(env.ctx, email, password);
  return { ...owner, email };
}

/** POST /v1/auth/login from a client address of its own (the per-client limit stays out of the way). */
async function login(email: string, password: string, headers: Record<string, string> = {}) {
  return env.request(
    null,
    'POST',
    '/v1/auth/login',
    { email, password },
    {
      'x-forwarded-for': `10.0.${Math.floor(++seq / 250)}.${seq % 250}`,
      ...headers,
    },
  );
}

function cookieOf(res: { headers: Record<string, unknown> }): { header: string; value: string } {
  const header = String(res.headers['set-cookie']);
  const value = /^herald_session=([^;]*)/.exec(header)![1];
  return { header, value };
}

/** A request with the session cookie (and optionally its CSRF token). */
function withSession(cookie: string, method: string, url: string, body?: unknown, csrf?: string) {
  return env.request(null, method, url, body, {
    cookie: `other=1; herald_session=${cookie}`,
    ...(csrf ? { 'x-csrf-token': csrf } : {}),
  });
}

describe('POST /v1/auth/login', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie, Secure only over https, and stores only its hash', async () => {
    const { email, userId } = await ownerWithPassword();
    const res = await login(email.toUpperCase(), PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user: { _id: userId, email, role: 'owner' },
      csrfToken: expect.stringMatching(/^[0-9a-f]{64}$/),
      expiresAt: '2026-03-09T09:00:00.000Z',
    });
    const { header, value } = cookieOf(res);
    expect(header).toMatch(/; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/);
    expect(header).not.toContain('Secure');
    const rows = await env.ctx.db.kysely.selectFrom('session').selectAll().where('user_id', '=', userId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ token_hash: sha256Hex(value), tenant_id: userId });
    expect(JSON.stringify(rows[0])).not.toContain(value);

    // Behind a TLS-terminating proxy (X-Forwarded-Proto: https) the cookie is Secure.
    const secure = await login(email, PASSWORD, { 'x-forwarded-proto': 'https' });
    expect(cookieOf(secure).header).toMatch(/; Path=\/; HttpOnly; SameSite=Strict; Secure; Max-Age=604800$/);
    // So it is when PUBLIC_URL is https, whatever the proxy says.
    const config = env.ctx.config as { publicUrl: string };
    const before = config.publicUrl;
    config.publicUrl = 'https://herald.example.test';
    try {
      expect(cookieOf(await login(email, PASSWORD)).header).toContain('; Secure;');
    } finally {
      config.publicUrl = before;
    }
  });

  it('refuses a wrong password, an unknown email and a user without a password alike', async () => {
    const { email } = await ownerWithPassword();
    const noPassword = await env.createUser();
    const noPasswordEmail = (await env.request(noPassword.apiKey, 'GET', '/v1/users')).body.users[0].email;
    for (const [mail, password] of [
      [email, 'wrong password!'],
      ['nobody@example.test', PASSWORD],
      [noPasswordEmail, PASSWORD],
    ]) {
      const res = await login(mail, password);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Wrong email or password', code: 'invalid_credentials', details: {} });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it(`limits attempts to ${LOGIN_ATTEMPTS_PER_EMAIL} a minute per email, from any address, right or wrong`, async () => {
    const { email } = await ownerWithPassword();
    for (let i = 0; i < LOGIN_ATTEMPTS_PER_EMAIL; i++)
      expect((await login(email, 'not the password')).status).toBe(401);
    const refused = await login(email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'too_many_login_attempts', details: { retryAfter: 60 } });
    expect(refused.headers['set-cookie']).toBeUndefined();
    env.clock.advance(61_000);
    expect((await login(email, PASSWORD)).status).toBe(200);
  });
});

describe('a session', () => {
  it('works for the /v1 API with the user’s permissions; a write needs the CSRF token, an API key does not', async () => {
    const { email, apiKey } = await ownerWithPassword();
    const res = await login(email, PASSWORD);
    const { value } = cookieOf(res);
    const csrf = res.body.csrfToken as string;

    const session = await withSession(value, 'GET', '/v1/auth/session');
    expect(session.status).toBe(200);
    expect(session.body).toEqual(res.body);
    expect((await withSession(value, 'GET', '/v1/profiles')).status).toBe(200);
    expect((await withSession(value, 'GET', '/v1/api-keys/current')).body).toMatchObject({
      apiKey: { permission: 'read-write', scope: 'full', profileIds: null },
      plan: 'build',
    });

    // A write with the cookie alone (what a forged cross-site request would be) is refused, and writes nothing.
    const forged = await withSession(value, 'POST', '/v1/profiles', { name: 'Forged' });
    expect(forged.status).toBe(403);
    expect(forged.body).toEqual({
      error: 'A request signed in by session cookie must send its CSRF token in the X-CSRF-Token header',
      code: 'csrf_token_invalid',
      details: {},
    });
    expect((await withSession(value, 'POST', '/v1/profiles', { name: 'Forged' }, 'f'.repeat(64))).status).toBe(403);
    const names = async () =>
      (await env.request(apiKey, 'GET', '/v1/profiles')).body.profiles.map((p: { name: string }) => p.name);
    expect(await names()).not.toContain('Forged');

    const created = await withSession(value, 'POST', '/v1/profiles', { name: 'By session' }, csrf);
    expect(created.status).toBe(201);
    expect(await names()).toContain('By session');

    // An Authorization header wins over any cookie: programs never need a CSRF token.
    const byKey = await env.request(
      apiKey,
      'POST',
      '/v1/profiles',
      { name: 'By key' },
      {
        cookie: `herald_session=${value}`,
      },
    );
    expect(byKey.status).toBe(201);
  });

  it('gives a member invited to some profiles exactly those profiles', async () => {
    const owner = await env.createUser({ plan: 'build' });
    const a = (await env.request(owner.apiKey, 'POST', '/v1/profiles', { name: 'A' })).body.profile._id;
    await env.request(owner.apiKey, 'POST', '/v1/profiles', { name: 'B' });
    const invite = await env.request(owner.apiKey, 'POST', '/v1/invite/tokens', { scope: 'profiles', profileIds: [a] });
    const email = `member-${++seq}@example.test`;
    const accepted = await env.request(null, 'POST', '/v1/invite/accept', {
      token: invite.body.token,
      email,
      password: PASSWORD,
    });
    const { value } = cookieOf(accepted);
    const profiles = (await withSession(value, 'GET', '/v1/profiles')).body.profiles;
    expect(profiles.map((p: { _id: string }) => p._id)).toEqual([a]);
    // The member cannot invite to all profiles, with a session as with a key.
    const all = await withSession(value, 'POST', '/v1/invite/tokens', { scope: 'all' }, accepted.body.csrfToken);
    expect(all.status).toBe(403);
    expect(all.body.code).toBe('invite_scope_forbidden');
  });

  it('ends on the server at logout: the same cookie no longer works', async () => {
    const { email, userId } = await ownerWithPassword();
    const res = await login(email, PASSWORD);
    const { value } = cookieOf(res);
    expect((await withSession(value, 'POST', '/v1/auth/logout')).status).toBe(403); // logout needs the token too
    const out = await withSession(value, 'POST', '/v1/auth/logout', undefined, res.body.csrfToken);
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(
      /^herald_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/,
    );
    expect(await env.ctx.db.kysely.selectFrom('session').selectAll().where('user_id', '=', userId).execute()).toEqual(
      [],
    );
    const after = await withSession(value, 'GET', '/v1/profiles');
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'unauthorized', error: 'Your session has ended: sign in again' });
  });

  it('expires after SESSION_TTL_HOURS', async () => {
    const { email } = await ownerWithPassword();
    const { value } = cookieOf(await login(email, PASSWORD));
    env.clock.advance(168 * 3_600_000 - 1000);
    expect((await withSession(value, 'GET', '/v1/profiles')).status).toBe(200);
    env.clock.advance(1000);
    expect((await withSession(value, 'GET', '/v1/profiles')).status).toBe(401);
  });

  it('refuses logout and the session read to an API key, in the envelope', async () => {
    const { apiKey } = await env.createUser();
    const res = await env.request(apiKey, 'POST', '/v1/auth/logout');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'not_a_session' });
    expect((await env.request(null, 'GET', '/v1/auth/session')).status).toBe(401);
  });
});

describe('PUT /v1/auth/password', () => {
  it('lets an owner signed in with an API key set a password, then sign in with it', async () => {
    const owner = await env.createUser();
    const email = (await env.request(owner.apiKey, 'GET', '/v1/users')).body.users[0].email;
    const short = await env.request(owner.apiKey, 'PUT', '/v1/auth/password', { newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.details.fields).toEqual({ newPassword: ['must have at least 10 characters'] });
    const set = await env.request(owner.apiKey, 'PUT', '/v1/auth/password', { newPassword: PASSWORD });
    expect(set.status).toBe(200);
    const row = await env.ctx.db.kysely
      .selectFrom('user_password')
      .selectAll()
      .where('user_id', '=', owner.userId)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(row.password_hash).not.toContain(PASSWORD);
    expect(await verifyPassword(PASSWORD, row.password_hash)).toBe(true);
    expect((await login(email, PASSWORD)).status).toBe(200);
  });

  it('asks a session for the current password, and ends the user’s other sessions', async () => {
    const { email, userId } = await ownerWithPassword();
    const first = await login(email, PASSWORD);
    const second = await login(email, PASSWORD);
    const { value } = cookieOf(second);
    const csrf = second.body.csrfToken;
    const wrong = await withSession(
      value,
      'PUT',
      '/v1/auth/password',
      {
        currentPassword: 'not it at all',
        newPassword: 'a new password',
      },
      csrf,
    );
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe('wrong_password');
    const ok = await withSession(
      value,
      'PUT',
      '/v1/auth/password',
      {
        currentPassword: PASSWORD,
        newPassword: 'a new password',
      },
      csrf,
    );
    expect(ok.status).toBe(200);
    expect((await withSession(cookieOf(first).value, 'GET', '/v1/profiles')).status).toBe(401);
    expect((await withSession(value, 'GET', '/v1/profiles')).status).toBe(200);
    const sessions = await env.ctx.db.kysely.selectFrom('session').selectAll().where('user_id', '=', userId).execute();
    expect(sessions).toHaveLength(1);
    expect((await login(email, PASSWORD)).status).toBe(401);
    expect((await login(email, 'a new password')).status).toBe(200);
  });

  it('is refused to a profile-scoped key', async () => {
    const owner = await env.createUser();
    const a = (await env.request(owner.apiKey, 'POST', '/v1/profiles', { name: 'A' })).body.profile._id;
    const scoped = await env.request(owner.apiKey, 'POST', '/v1/api-keys', {
      name: 'scoped',
      scope: 'profiles',
      profileIds: [a],
    });
    const res = await env.request(scoped.body.apiKey.key, 'PUT', '/v1/auth/password', { newPassword: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('full_scope_key_required');
  });
});

describe('invitation links', () => {
  it('sends a browser to the dashboard invitation page and a program to the JSON description', async () => {
    const owner = await env.createUser();
    const { token } = (await env.request(owner.apiKey, 'POST', '/v1/invite/tokens', { scope: 'all' })).body;
    const page = await env.request(null, 'GET', `/v1/invite/${token}`, undefined, {
      accept: 'text/html,application/xhtml+xml,*/*;q=0.8',
    });
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe(`/app/invite/${token}`);
    const json = await env.request(null, 'GET', `/v1/invite/${token}`, undefined, { accept: 'application/json' });
    expect(json.status).toBe(200);
    expect(json.body.status).toBe('pending');
  });

  it('accepting with a password creates the member, stores the hash and signs in', async () => {
    const owner = await env.createUser();
    const { token } = (await env.request(owner.apiKey, 'POST', '/v1/invite/tokens', { scope: 'all' })).body;
    const email = `invitee-${++seq}@example.test`;
    const tooShort = await env.request(null, 'POST', '/v1/invite/accept', { token, email, password: 'short' });
    expect(tooShort.status).toBe(400);
    expect(tooShort.body.details.fields).toEqual({ password: ['must have at least 10 characters'] });
    // Nothing was written by the refused attempt: the invite is still pending.
    expect((await env.request(null, 'GET', `/v1/invite/${token}`)).body.status).toBe('pending');

    const res = await env.request(null, 'POST', '/v1/invite/accept', {
      token,
      email,
      name: 'Ines',
      password: PASSWORD,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      user: { email, role: 'member', name: 'Ines' },
      csrfToken: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const { header, value } = cookieOf(res);
    expect(header).toContain('HttpOnly; SameSite=Strict');
    expect((await withSession(value, 'GET', '/v1/auth/session')).body.user.email).toBe(email);
    expect((await login(email, PASSWORD)).status).toBe(200);
    // Used once: a second acceptance is refused.
    const again = await env.request(null, 'POST', '/v1/invite/accept', {
      token,
      email: `x${email}`,
      password: PASSWORD,
    });
    expect(again.status).toBe(409);
  });
});
