import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/jobs/runner.js';
import { telegramSimulator } from '../../src/sandbox/telegram/index.js';
import { listEvents } from '../../src/store/events.js';
import { createWorker } from '../../src/worker.js';
import { createTenant } from '../helpers/posts.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';
import { proveTelegramChat } from '../helpers/telegram-proof.js';

// A 1x1 PNG served from loopback (the engine checks external media with a HEAD before publishing).
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let runner: JobRunner;
let media: http.Server;
let imageUrl: string;
beforeAll(async () => {
  h = await createSandboxEnv([telegramSimulator()]);
  runner = await createWorker(h.env.ctx);
  media = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
    res.end(_req.method === 'HEAD' ? undefined : PNG);
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', () => r()));
  imageUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}/pixel.png`;
});
afterAll(async () => {
  await new Promise((r) => media?.close(r));
  await h?.close();
});

const inspect = async (): Promise<any[]> => (await sandboxCall(h.sandbox, 'GET', '/sandbox/telegram/_inspect')).posts;

async function connectedTenant(chatId: string) {
  const t = await createTenant(h.env);
  await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, chatId);
  const res = await t.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId, profileId: t.profileId } });
  return { t, accountId: (res.data as any).account._id as string };
}

async function publishNow(
  t: Awaited<ReturnType<typeof createTenant>>,
  accountId: string,
  body: Record<string, unknown>,
) {
  // Telegram allows about one message a second in a chat (docs/pacing.md): a second post to the same chat
  // within the second waits for it, so each post here comes a second after the one before.
  h.env.clock.advance(1_000);
  const created = await t.sdk.posts.createPost({
    body: { platforms: [{ platform: 'telegram', accountId }], publishNow: true, ...body } as any,
  });
  await runner.drain();
  const postId = (created.data as any).post._id as string;
  return (await t.sdk.posts.getPost({ path: { postId } })).data as any;
}

describe('Telegram end to end: SDK connect, posts API, Bot API simulator', () => {
  it('publishes text and an image exactly once each; targets carry the message id, the t.me link and logs', async () => {
    const { t, accountId } = await connectedTenant('-1001111111111');
    const before = (await inspect()).length;

    const text = await publishNow(t, accountId, { content: 'Hello <b>Telegram</b> from Herald' });
    expect(text.post.status).toBe('published');
    const target = text.post.platforms[0];
    expect(target.status).toBe('published');
    expect(target.platformPostId).toMatch(/^\d+$/);
    expect(target.platformPostUrl).toBe(`https://t.me/c/1111111111/${target.platformPostId}`);

    const image = await publishNow(t, accountId, {
      content: 'A pixel',
      mediaItems: [{ type: 'image', url: imageUrl }],
    });
    expect(image.post.platforms[0].status).toBe('published');

    await runner.drain();
    const posts = (await inspect()).slice(before);
    expect(posts).toHaveLength(2);
    expect(posts[0]).toMatchObject({
      id: target.platformPostId,
      text: 'Hello <b>Telegram</b> from Herald',
      extra: { chatId: '-1001111111111', method: 'sendMessage', parseMode: 'HTML' },
    });
    expect(posts[1]).toMatchObject({
      text: 'A pixel',
      media: [{ type: 'image', url: imageUrl }],
      extra: { method: 'sendPhoto' },
    });

    const logs = await h.env.request(t.apiKey, 'GET', `/v1/posts/${text.post._id}/logs`);
    expect(logs.status).toBe(200);
    const success = logs.body.logs.filter((l: any) => l.status === 'success');
    expect(success).toHaveLength(1);
    expect(success[0]).toMatchObject({ platform: 'telegram', action: 'publish' });
    expect(JSON.stringify(logs.body)).not.toContain('SANDBOX_herald_bot_token');
  });

  it('a rate-limited send backs off and publishes once; an ambiguous one is never re-sent', async () => {
    const { t, accountId } = await connectedTenant('-1002222222222');
    const before = (await inspect()).length;
    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_faults', { kind: 'rate_limited', count: 1 });
    const created = await t.sdk.posts.createPost({
      body: { content: 'throttled', platforms: [{ platform: 'telegram', accountId }], publishNow: true } as any,
    });
    await runner.drain();
    expect((await inspect()).slice(before).filter((p) => p.text === 'throttled')).toHaveLength(0);
    h.env.clock.advance(60_000); // past retry_after (5 s) and the engine's backoff
    await runner.drain();
    const post = (await t.sdk.posts.getPost({ path: { postId: (created.data as any).post._id } })).data as any;
    expect(post.post.platforms[0].status).toBe('published');
    expect((await inspect()).slice(before).filter((p) => p.text === 'throttled')).toHaveLength(1);

    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_faults', { kind: 'ambiguous', count: 1 });
    const maybe = await t.sdk.posts.createPost({
      body: { content: 'maybe sent', platforms: [{ platform: 'telegram', accountId }], publishNow: true } as any,
    });
    await runner.drain();
    h.env.clock.advance(3600_000);
    await runner.drain();
    const after = (await t.sdk.posts.getPost({ path: { postId: (maybe.data as any).post._id } })).data as any;
    expect(after.post.platforms[0].status).not.toBe('published');
    expect((await inspect()).filter((p) => p.text === 'maybe sent')).toHaveLength(1);
  });
});

describe('Telegram chat migration through the engine', () => {
  it('a group upgraded to a supergroup gets the post once and the account keeps the new chat id', async () => {
    const { t, accountId } = await connectedTenant('-31337');
    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_chats', {
      id: -31337,
      type: 'group',
      migrateTo: -1003133700000,
    });
    const res = await publishNow(t, accountId, { content: 'after upgrade' });
    expect(res.post.platforms[0].status).toBe('published');
    const sent = (await inspect()).filter((p) => p.text === 'after upgrade');
    expect(sent).toHaveLength(1);
    expect(sent[0].extra.chatId).toBe('-1003133700000');
    const row = await h.env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.metadata).chatId).toBe('-1003133700000');
    // The next post goes straight to the new chat.
    await publishNow(t, accountId, { content: 'second' });
    expect((await inspect()).filter((p) => p.text === 'second')[0].extra.chatId).toBe('-1003133700000');
  });
});

describe('Telegram bot removed from the chat', () => {
  it('fails the target and disconnects the account once, with account.disconnected (unintentional)', async () => {
    const { t, accountId } = await connectedTenant('-1009990001');
    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_chats', {
      id: -1009990001,
      type: 'channel',
      botStatus: 'kicked',
    });
    const res = await publishNow(t, accountId, { content: 'nobody hears this' });
    expect(res.post.platforms[0].status).toBe('failed');
    // The disconnected account takes no new posts until it is connected again.
    const refused = await t.sdk.posts
      .createPost({
        body: { content: 'nor this', platforms: [{ platform: 'telegram', accountId }], publishNow: true } as any,
      })
      .catch((e: unknown) => e as { statusCode: number });
    expect(refused.statusCode).toBe(400);
    await runner.drain();
    const row = await h.env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(row.is_active).toBe(0);
    const events = await listEvents(h.env.ctx.db.kysely, t.userId, 'account.disconnected');
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).account).toMatchObject({ accountId, disconnectionType: 'unintentional' });
    expect((await inspect()).filter((p) => p.text === 'nobody hears this')).toHaveLength(0);
  });

  it('edits a published text message and a photo caption through the edit API (POST /v1/posts/{id}/edit)', async () => {
    const { t, accountId } = await connectedTenant('-1003333333333');
    const text = await publishNow(t, accountId, { content: 'First words' });
    const photo = await publishNow(t, accountId, {
      content: 'A caption',
      mediaItems: [{ type: 'image', url: imageUrl }],
    });
    const edit = (postId: string, content: string) =>
      h.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/edit`, { platform: 'telegram', content });
    const edited = await edit(text.post._id, 'Second words');
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ success: true, id: text.post.platforms[0].platformPostId });
    expect((await edit(photo.post._id, 'A better caption')).status).toBe(200);
    const tooLong = await edit(photo.post._id, 'x'.repeat(1025));
    expect([tooLong.status, tooLong.body.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    const posts = await inspect();
    const byId = (id: string) => posts.find((p) => p.id === id && p.destination === '-1003333333333');
    expect(byId(text.post.platforms[0].platformPostId)).toMatchObject({
      text: 'Second words',
      extra: { edited: true },
    });
    expect(byId(photo.post.platforms[0].platformPostId)).toMatchObject({
      text: 'A better caption',
      extra: { edited: true },
    });
  });
});
