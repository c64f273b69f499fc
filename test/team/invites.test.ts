import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/crypto.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { sdkError } from '../helpers/sdk.js';
import { entryArgs } from '../helpers/processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const NOW = '2026-01-05T12:00:00.000Z';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ now: NOW, env: { PUBLIC_URL: 'https://herald.example.test/' } });
});
afterAll(async () => env?.close());

/** An owner with profiles A and B. */
async function team() {
  const owner = await env.createUser({ plan: 'build' });
  const client = await env.sdk(owner.apiKey);
  const a = ((await client.profiles.createProfile({ body: { name: 'A' } })).data as any).profile._id as string;
  const b = ((await client.profiles.createProfile({ body: { name: 'B' } })).data as any).profile._id as string;
  return { owner, client, a, b };
}

let emails = 0;
const email = () => `member-${++emails}-${Date.now()}@example.test`;

async function accept(token: string, mail = email()) {
  return env.request(null, 'POST', '/v1/invite/accept', { token, email: mail, name: 'Member' });
}

describe('team invitations', () => {
  it('creates a single-use 7-day invite through the SDK, storing only its hash', async () => {
    const { client, a } = await team();
    const res = await client.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [a] } });
    expect(res.response.status).toBe(201);
    const inv = res.data as any;
    expect(inv.token).toMatch(/^inv_[0-9a-f]{48}$/);
    expect(inv).toMatchObject({ scope: 'profiles', invitedProfileIds: [a], expiresAt: '2026-01-12T12:00:00.000Z' });
    expect(inv.inviteUrl).toBe(`https://herald.example.test/v1/invite/${inv.token}`);
    const rows = await env.ctx.db.kysely
      .selectFrom('invite')
      .selectAll()
      .where('token_hash', '=', sha256Hex(inv.token))
      .execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(inv.token);
  });

  it('accepting creates a member who sees only the invited profiles and what hangs under them', async () => {
    const { owner, client, a, b } = await team();
    await client.queue.createQueueSlot({
      body: { profileId: b, name: 'B queue', timezone: 'UTC', slots: [{ dayOfWeek: 1, time: '10:00' }] },
    });
    const token = (
      (await client.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [a] } })).data as any
    ).token;

    const mail = email();
    const res = await accept(token, mail);
    expect(res.status).toBe(201);
    expect(res.body.apiKey).toMatch(/^sk_[0-9a-f]{64}$/);
    expect(res.body.user).toMatchObject({ email: mail, role: 'member', isRoot: false, profileAccess: [a] });
    const row = await env.ctx.db.kysely
      .selectFrom('user')
      .selectAll()
      .where('email', '=', mail)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ role: 'member', tenant_id: owner.userId, profile_access: JSON.stringify([a]) });
    const invite = await env.ctx.db.kysely
      .selectFrom('invite')
      .selectAll()
      .where('token_hash', '=', sha256Hex(token))
      .executeTakeFirstOrThrow();
    expect(invite).toMatchObject({ used_by: row.user_id, used_at: NOW });

    const member = await env.sdk(res.body.apiKey);
    const list = (await member.profiles.listProfiles()).data as any;
    expect(list.profiles.map((p: any) => p._id)).toEqual([a]);
    expect((await member.profiles.getProfile({ path: { profileId: a } })).response.status).toBe(200);
    const outside = [
      () => member.profiles.getProfile({ path: { profileId: b } }),
      () => member.profiles.updateProfile({ path: { profileId: b }, body: { name: 'taken over' } }),
      () => member.profiles.deleteProfile({ path: { profileId: b } }),
      () => member.queue.listQueueSlots({ query: { profileId: b } }),
      () => member.queue.previewQueue({ query: { profileId: b } }),
      () => member.queue.createQueueSlot({ body: { profileId: b, name: 'x', timezone: 'UTC', slots: [] } }),
      () => member.queue.deleteQueueSlot({ query: { profileId: b } }),
    ];
    for (const call of outside) expect((await sdkError(call())).statusCode).toBe(404);
    expect(
      (
        await env.ctx.db.kysely
          .selectFrom('profile')
          .select('name')
          .where('profile_id', '=', b)
          .executeTakeFirstOrThrow()
      ).name,
    ).toBe('B');
    expect(
      await env.ctx.db.kysely.selectFrom('queue').select('queue_id').where('profile_id', '=', b).execute(),
    ).toHaveLength(1);

    // A restricted member cannot create profiles.
    const create = await sdkError(member.profiles.createProfile({ body: { name: 'C' } }));
    expect(create.statusCode).toBe(403);
    expect(
      await env.ctx.db.kysely
        .selectFrom('profile')
        .select('profile_id')
        .where('tenant_id', '=', owner.userId)
        .execute(),
    ).toHaveLength(2);
  });

  it('serves the invite link without using the invite, and shows its status', async () => {
    const { client, a } = await team();
    const token = (
      (await client.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [a] } })).data as any
    ).token;
    const link = await env.request(null, 'GET', `/v1/invite/${token}`);
    expect(link.status).toBe(200);
    expect(link.body).toEqual({
      scope: 'profiles',
      invitedProfileIds: [a],
      expiresAt: '2026-01-12T12:00:00.000Z',
      status: 'pending',
      accept: { method: 'POST', url: 'https://herald.example.test/v1/invite/accept', body: ['token', 'email', 'name'] },
    });
    expect((await accept(token)).status).toBe(201);
    expect((await env.request(null, 'GET', `/v1/invite/${token}`)).body.status).toBe('used');
    expect((await env.request(null, 'GET', `/v1/invite/inv_${'1'.repeat(48)}`)).status).toBe(404);
  });

  it('is single use, even when two people accept at the same time', async () => {
    const { client, a } = await team();
    const token = (
      (await client.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [a] } })).data as any
    ).token;
    const results = await Promise.all([accept(token), accept(token), accept(token)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(results.find((r) => r.status === 409)!.body.code).toBe('invite_used');
    const again = await accept(token);
    expect(again.status).toBe(409);
    const members = await env.ctx.db.kysely
      .selectFrom('user')
      .select('user_id')
      .where('role', '=', 'member')
      .where('profile_access', '=', JSON.stringify([a]))
      .execute();
    expect(members).toHaveLength(1);
  });

  it('expires after 7 days and rejects unknown tokens', async () => {
    const { client } = await team();
    const token = ((await client.invites.createInviteToken({ body: { scope: 'all' } })).data as any).token;
    env.clock.advance(7 * 86_400_000 + 1000);
    try {
      const expired = await accept(token);
      expect(expired.status).toBe(400);
      expect(expired.body.code).toBe('invite_expired');
    } finally {
      env.clock.set(NOW);
    }
    const unknown = await accept('inv_' + '0'.repeat(48));
    expect(unknown.status).toBe(404);
    // Still usable inside its week.
    expect((await accept(token)).status).toBe(201);
  });

  it('refuses invites to profiles the caller cannot see, and "all" from a restricted member', async () => {
    const { client, a, b } = await team();
    const other = await team();
    const foreign = await sdkError(
      client.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [other.a] } }),
    );
    expect(foreign.statusCode).toBe(403);
    const missing = await sdkError(client.invites.createInviteToken({ body: { scope: 'profiles' } }));
    expect(missing.statusCode).toBe(400);
    expect(missing.details?.fields).toHaveProperty('profileIds');

    const token = (
      (await client.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [a] } })).data as any
    ).token;
    const member = await env.sdk((await accept(token)).body.apiKey);
    expect((await sdkError(member.invites.createInviteToken({ body: { scope: 'all' } }))).statusCode).toBe(403);
    expect(
      (await sdkError(member.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [a, b] } })))
        .statusCode,
    ).toBe(403);
    const ok = await member.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [a] } });
    expect((ok.data as any).invitedProfileIds).toEqual([a]);
  });

  it('an "all" invite makes a member who sees every profile of the team', async () => {
    const { client, a, b } = await team();
    const token = ((await client.invites.createInviteToken({ body: { scope: 'all' } })).data as any).token;
    const res = await accept(token);
    expect(res.body.user.profileAccess).toEqual(['all']);
    const member = await env.sdk(res.body.apiKey);
    const list = (await member.profiles.listProfiles()).data as any;
    expect(list.profiles.map((p: any) => p._id).sort()).toEqual([a, b].sort());
  });

  it('accepts an invite from the CLI, printing the new key', async () => {
    const { owner, client, a } = await team();
    // The CLI process runs on the real clock: issue the invite at real time.
    env.clock.set(new Date());
    const token = (
      (await client.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [a] } })).data as any
    ).token;
    env.clock.set(NOW);
    const mail = email();
    const cfg = env.config;
    const child = spawn(
      process.execPath,
      [...entryArgs('src/cli.ts'), 'invites', 'accept', token, '--email', mail, '--json'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          DATA_DIR: cfg.dataDir,
          LOG_LEVEL: 'silent',
          SECRET_KEY: cfg.secretKey!,
          ...(cfg.databaseUrl ? { DATABASE_URL: cfg.databaseUrl, DATABASE_SCHEMA: cfg.databaseSchema! } : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, err).toBe(0);
    const printed = JSON.parse(out.trim());
    expect(printed).toMatchObject({ tenantId: owner.userId });
    expect(printed.apiKey).toMatch(/^sk_[0-9a-f]{64}$/);
    const member = await env.sdk(printed.apiKey);
    expect(((await member.profiles.listProfiles()).data as any).profiles.map((p: any) => p._id)).toEqual([a]);
    // The token is spent.
    expect((await accept(token)).status).toBe(409);
  });
});

describe('users', () => {
  it('lists the team with roles and profile access, and hides other tenants', async () => {
    const { owner, client, a } = await team();
    const token = (
      (await client.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [a] } })).data as any
    ).token;
    const accepted = (await accept(token)).body;

    const list = (await client.users.listUsers()).data as any;
    expect(list.currentUserId).toBe(owner.userId);
    expect(list.users).toHaveLength(2);
    expect(list.users[0]).toMatchObject({ _id: owner.userId, role: 'owner', isRoot: true, profileAccess: ['all'] });
    expect(list.users[1]).toMatchObject({
      _id: accepted.user._id,
      role: 'member',
      isRoot: false,
      profileAccess: [a],
      name: 'Member',
    });
    expect(list.users[1].createdAt).toBe(NOW);

    const member = await env.sdk(accepted.apiKey);
    const seen = (await member.users.listUsers()).data as any;
    expect(seen.currentUserId).toBe(accepted.user._id);
    expect(seen.users.map((u: any) => u._id)).toEqual([owner.userId, accepted.user._id]);

    const one = (await client.users.getUser({ path: { userId: accepted.user._id } })).data as any;
    expect(one.user).toMatchObject({ _id: accepted.user._id, email: accepted.user.email });

    const stranger = await env.createUser();
    expect((await sdkError(client.users.getUser({ path: { userId: stranger.userId } }))).statusCode).toBe(404);
    expect((await sdkError(client.users.getUser({ path: { userId: 'nope' } }))).statusCode).toBe(404);
    const strangers = (await (await env.sdk(stranger.apiKey)).users.listUsers()).data as any;
    expect(strangers.users.map((u: any) => u._id)).toEqual([stranger.userId]);
  });
});
