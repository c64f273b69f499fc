import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshAccountTokens } from '../../../src/domain/accounts/refresh-tokens.js';
import type { JobRunner } from '../../../src/jobs/runner.js';
import { listEvents } from '../../../src/store/events.js';
import { createWorker } from '../../../src/worker.js';
import { solidImage } from '../../fixtures/media.js';
import { createTestEnv, type TestEnv } from '../../helpers/context.js';
import { startTestPds, type PdsAccount, type TestPds } from '../../helpers/pds.js';
import { createTenant } from '../../helpers/posts.js';

/**
 * Herald (SQLite or PostgreSQL) with BLUESKY_SERVICE_URL pointing at a real PDS on loopback: connect
 * through the official SDK and the spec body, publish through the posts API and the job runner, and
 * read the records back from the PDS.
 */
let pds: TestPds;
let env: TestEnv;
let runner: JobRunner;
let site: http.Server;
let siteUrl: string;
let png: Buffer;

beforeAll(async () => {
  pds = await startTestPds();
  env = await createTestEnv({ env: { BLUESKY_SERVICE_URL: pds.url, OUTBOUND_ALLOW_PRIVATE: '1' } });
  runner = await createWorker(env.ctx, { workerId: 'bluesky-test' });
  png = await solidImage(40, 30);
  site = http.createServer((req, res) => {
    if (req.url === '/pic.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      return void res.end(req.method === 'HEAD' ? undefined : png);
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      '<html><head><meta property="og:title" content="The article"><meta name="description" content="What it says"></head></html>',
    );
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((r) => site?.close(r));
  await env?.close();
  await pds?.close();
});

const data = (res: { data?: unknown }) => res.data as any;
const account = (id: string) =>
  env.ctx.db.kysely.selectFrom('account').selectAll().where('account_id', '=', id).executeTakeFirstOrThrow();
const targetsOf = (postId: string) =>
  env.ctx.db.kysely.selectFrom('post_target').selectAll().where('post_id', '=', postId).execute();
const connectionLogs = (tenantId: string) =>
  env.ctx.db.kysely
    .selectFrom('connection_log')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('platform', '=', 'bluesky')
    .orderBy('created_at')
    .orderBy('log_id')
    .execute();
const getRecord = (uri: string) => {
  const [, repo, collection, rkey] = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri)!;
  return pds.get('com.atproto.repo.getRecord', { repo, collection, rkey });
};
const postsOn = async (did: string) =>
  (await pds.get('com.atproto.repo.listRecords', { repo: did, collection: 'app.bsky.feed.post', limit: '100' }))
    .records as any[];
const covered = (text: string, f: any) => Buffer.from(text).subarray(f.index.byteStart, f.index.byteEnd).toString();

/** A tenant with a Bluesky account connected through the SDK. */
async function connected(pdsAccount?: PdsAccount) {
  const t = await createTenant(env);
  const who = pdsAccount ?? (await pds.createAccount());
  const res = await t.sdk.connect.bluesky.connectBlueskyCredentials({
    body: { identifier: who.handle, appPassword: who.appPassword, state: `${t.userId}-${t.profileId}` },
  });
  expect(res.response.status).toBe(200);
  return { ...t, who, accountId: data(res).account._id as string, res };
}

async function publishNow(t: Awaited<ReturnType<typeof connected>>, body: Record<string, unknown>) {
  const res = await t.sdk.posts.createPost({
    body: { publishNow: true, platforms: [{ platform: 'bluesky', accountId: t.accountId }], ...body } as any,
  });
  expect(res.response.status).toBe(201);
  await runner.drain();
  const postId = data(res).post._id as string;
  const [target] = await targetsOf(postId);
  return { postId, target };
}

describe('POST /v1/connect/bluesky/credentials (SDK)', () => {
  it('creates a session against the PDS and stores the account with encrypted tokens, a log and an event', async () => {
    const t = await connected();
    const body = data(t.res);
    expect(body.message).toMatch(/connected/i);
    expect(body.account).toMatchObject({
      platform: 'bluesky',
      username: t.who.handle,
      isActive: true,
      profileId: t.profileId,
    });
    const row = await account(t.accountId);
    expect(row.platform_user_id).toBe(t.who.did);
    expect(JSON.parse(row.metadata)).toMatchObject({ did: t.who.did, pdsUrl: pds.url });
    // Tokens are sealed at rest; they open to the PDS's JWTs. The app password is not stored anywhere.
    expect(row.access_token).not.toMatch(/^eyJ/);
    expect(env.ctx.secrets.open(row.access_token!)).toMatch(/^eyJ/);
    expect(JSON.stringify(row)).not.toContain(t.who.appPassword);
    expect(row.token_expires_at).not.toBeNull();
    const connectedEvents = await listEvents(env.ctx.db.kysely, t.userId, 'account.connected');
    expect(connectedEvents).toHaveLength(1);
    const logs = await connectionLogs(t.userId);
    expect(logs.map((l) => [l.event_type, l.connection_method, l.status])).toEqual([
      ['connect_success', 'credentials', 'success'],
    ]);
  });

  it('refuses a password that is not an app password with a 400, before calling the PDS', async () => {
    const t = await createTenant(env);
    const who = await pds.createAccount();
    const res = await env.request(t.apiKey, 'POST', '/v1/connect/bluesky/credentials', {
      identifier: who.handle,
      appPassword: who.password,
      state: `${t.userId}-${t.profileId}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_app_password');
    expect(res.body.error).toMatch(/not the main password/);
    expect(res.body.details.fields.appPassword).toBeDefined();
    expect(await connectionLogs(t.userId)).toHaveLength(0);
  });

  it('surfaces a wrong app password from the PDS as a clear 400 and logs the failure', async () => {
    const t = await createTenant(env);
    const who = await pds.createAccount();
    const res = await env.request(t.apiKey, 'POST', '/v1/connect/bluesky/credentials', {
      identifier: who.handle,
      appPassword: 'abcd-efgh-ijkl-mnop',
      state: `${t.userId}-${t.profileId}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('bluesky_authentication_failed');
    expect(res.body.error).toMatch(/Invalid identifier or password/);
    const logs = await connectionLogs(t.userId);
    expect(logs.map((l) => [l.event_type, l.status])).toEqual([['connect_failed', 'failed']]);
    expect(JSON.parse(logs[0].error!).rawResponse).toMatch(/AuthenticationRequired/);
    expect(
      await env.ctx.db.kysely.selectFrom('account').selectAll().where('tenant_id', '=', t.userId).execute(),
    ).toHaveLength(0);
  });

  it("refuses a state that is not the caller's {userId}-{profileId}", async () => {
    const t = await createTenant(env);
    const other = await createTenant(env);
    const who = await pds.createAccount();
    const res = await env.request(t.apiKey, 'POST', '/v1/connect/bluesky/credentials', {
      identifier: who.handle,
      appPassword: who.appPassword,
      state: `${other.userId}-${t.profileId}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_state');
    const foreign = await env.request(t.apiKey, 'POST', '/v1/connect/bluesky/credentials', {
      identifier: who.handle,
      appPassword: who.appPassword,
      state: `${t.userId}-${other.profileId}`,
    });
    expect(foreign.status).toBe(404);
  });
});

describe('POST /v1/connect/bluesky (spec body)', () => {
  it('connects with profileId, handle and appPassword and returns the account with _id at the top level; again = reconnect', async () => {
    const t = await createTenant(env);
    const who = await pds.createAccount();
    const res = await env.request(t.apiKey, 'POST', '/v1/connect/bluesky', {
      profileId: t.profileId,
      handle: `@${who.handle}`,
      appPassword: who.appPassword,
    });
    expect(res.status).toBe(200);
    expect(res.body._id).toBe(res.body.account._id);
    expect(res.body.account).toMatchObject({ platform: 'bluesky', username: who.handle, isActive: true });
    const second = await env.request(t.apiKey, 'POST', '/v1/connect/bluesky', {
      profileId: t.profileId,
      handle: who.handle,
      appPassword: await pds.createAppPassword(who),
    });
    expect(second.status).toBe(200);
    expect(second.body._id).toBe(res.body._id);
    const logs = await connectionLogs(t.userId);
    expect(logs.map((l) => l.event_type)).toEqual(['connect_success', 'reconnect_success']);
  });

  it('lists the connected account through the SDK', async () => {
    const t = await connected();
    const list = data(await t.sdk.accounts.listAccounts({ query: { platform: 'bluesky' } as any }));
    expect(list.accounts.map((a: any) => a._id)).toEqual([t.accountId]);
  });
});

describe('publishing to a real PDS', () => {
  it('publishes text with a link, a mention and a hashtag once, with the at-uri and the bsky.app URL', async () => {
    const t = await connected();
    const friend = await pds.createAccount();
    const content = `Ça marche ✨ @${friend.handle} https://example.com/x #launchDay`;
    const { target } = await publishNow(t, { content });
    expect(target.status).toBe('published');
    expect(target.platform_post_id).toMatch(new RegExp(`^at://${t.who.did}/app\\.bsky\\.feed\\.post/`));
    expect(target.platform_post_url).toBe(
      `https://bsky.app/profile/${t.who.handle}/post/${target.platform_post_id!.split('/').pop()}`,
    );
    const records = await postsOn(t.who.did);
    expect(records).toHaveLength(1);
    const rec = records[0];
    expect(rec.uri).toBe(target.platform_post_id);
    expect(rec.value.text).toBe(content);
    const spans = (rec.value.facets as any[]).map((f) => [f.features[0].$type.split('#')[1], covered(content, f)]);
    expect(spans).toEqual([
      ['mention', `@${friend.handle}`],
      ['link', 'https://example.com/x'],
      ['tag', '#launchDay'],
    ]);
    expect(rec.value.facets[0].features[0].did).toBe(friend.did);
    // The publishing log recorded the XRPC calls.
    const logs = await env.ctx.db.kysely
      .selectFrom('publish_log')
      .selectAll()
      .where('target_id', '=', target.target_id)
      .execute();
    expect(logs.some((l) => l.status === 'success')).toBe(true);
  });

  it('publishes an image with alt text, a 3-item thread with reply refs, and a link card', async () => {
    const t = await connected();
    const image = await publishNow(t, {
      content: 'a picture',
      mediaItems: [{ type: 'image', url: `${siteUrl}/pic.png`, altText: 'A pink rectangle' }],
    });
    expect(image.target.status).toBe('published');
    const imageRec = await getRecord(image.target.platform_post_id!);
    expect(imageRec.value.embed.$type).toBe('app.bsky.embed.images');
    expect(imageRec.value.embed.images[0].alt).toBe('A pink rectangle');
    expect(imageRec.value.embed.images[0].image.mimeType).toBe('image/png');

    const thread = await publishNow(t, {
      content: 'thread root',
      platforms: [
        {
          platform: 'bluesky',
          accountId: t.accountId,
          platformSpecificData: { threadItems: [{ content: 'one' }, { content: 'two' }, { content: 'three' }] },
        },
      ],
    });
    expect(thread.target.status).toBe('published');
    const root = await getRecord(thread.target.platform_post_id!);
    expect(root.value.text).toBe('one');
    const replies = (await postsOn(t.who.did)).filter((r) => r.value.reply?.root?.uri === root.uri).reverse();
    expect(replies.map((r) => r.value.text)).toEqual(['two', 'three']);
    expect(replies[0].value.reply.parent).toEqual({ uri: root.uri, cid: root.cid });
    expect(replies[1].value.reply.parent).toEqual({ uri: replies[0].uri, cid: replies[0].cid });

    const card = await publishNow(t, { content: `New post: ${siteUrl}/article` });
    const cardRec = await getRecord(card.target.platform_post_id!);
    expect(cardRec.value.embed).toEqual({
      $type: 'app.bsky.embed.external',
      external: { uri: `${siteUrl}/article`, title: 'The article', description: 'What it says' },
    });
    // Exactly once each: 1 image post + 3 thread posts + 1 card post.
    expect(await postsOn(t.who.did)).toHaveLength(5);
  });

  it('unpublishes through the SDK by deleting the record on the PDS', async () => {
    const t = await connected();
    const { postId, target } = await publishNow(t, { content: 'here today' });
    expect(await postsOn(t.who.did)).toHaveLength(1);
    const res = await t.sdk.posts.unpublishPost({ path: { postId }, body: { platform: 'bluesky' } });
    expect(res.response.status).toBe(200);
    expect(await postsOn(t.who.did)).toHaveLength(0);
    await expect(getRecord(target.platform_post_id!)).rejects.toThrow(/RecordNotFound|Could not locate/);
  });

  it('refreshes an expired access JWT silently and publishes once', async () => {
    const t = await connected();
    const before = await account(t.accountId);
    const expired = pds.expiredAccessJwt(env.ctx.secrets.open(before.access_token!));
    await env.ctx.db.kysely
      .updateTable('account')
      .set({ access_token: env.ctx.secrets.seal(expired) })
      .where('account_id', '=', t.accountId)
      .execute();
    const { target } = await publishNow(t, { content: 'after the token expired' });
    expect(target.status).toBe('published');
    expect(await postsOn(t.who.did)).toHaveLength(1);
    const after = await account(t.accountId);
    expect(after.is_active).toBe(1);
    expect(env.ctx.secrets.open(after.access_token!)).not.toBe(expired);
    expect(env.ctx.secrets.open(after.refresh_token!)).not.toBe(env.ctx.secrets.open(before.refresh_token!));
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'account.disconnected')).toHaveLength(0);
  });

  it('disconnects once when the session was revoked (refresh answers ExpiredToken)', async () => {
    const t = await connected();
    const row = await account(t.accountId);
    const refresh = env.ctx.secrets.open(row.refresh_token!);
    await fetch(`${pds.url}/xrpc/com.atproto.server.deleteSession`, {
      method: 'POST',
      headers: { authorization: `Bearer ${refresh}` },
    });
    const expired = pds.expiredAccessJwt(env.ctx.secrets.open(row.access_token!));
    await env.ctx.db.kysely
      .updateTable('account')
      .set({ access_token: env.ctx.secrets.seal(expired) })
      .where('account_id', '=', t.accountId)
      .execute();

    const first = await publishNow(t, { content: 'will not make it' });
    expect(first.target.status).toBe('failed');
    expect(first.target.error_category).toBe('auth_expired');
    // A second refresh attempt (e.g. the periodic token job) finds the session gone again: no second event.
    expect(await refreshAccountTokens(env.ctx, await account(t.accountId))).toBe('disconnected');
    await runner.drain();

    expect((await account(t.accountId)).is_active).toBe(0);
    const events = await listEvents(env.ctx.db.kysely, t.userId, 'account.disconnected');
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).account).toMatchObject({
      accountId: t.accountId,
      disconnectionType: 'unintentional',
    });
    expect(await postsOn(t.who.did)).toHaveLength(0);
  });
  // Last: it moves the shared fake clock two hours ahead.
  it('refreshes the session ahead of expiry from the worker, and the new session publishes', async () => {
    const t = await connected();
    await runner.drain();
    const before = await account(t.accountId);
    env.clock.advance(new Date(before.token_expires_at!).getTime() - env.clock.now().getTime() - 5 * 60_000);
    await runner.drain();
    const after = await account(t.accountId);
    expect(after.is_active).toBe(1);
    expect(env.ctx.secrets.open(after.refresh_token!)).not.toBe(env.ctx.secrets.open(before.refresh_token!));
    const { target } = await publishNow(t, { content: 'with the refreshed session' });
    expect(target.status).toBe('published');
    expect(await postsOn(t.who.did)).toHaveLength(1);
  });
});
