import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlueskyAdapter, type BlueskyAdapter } from '../../../src/platforms/bluesky/index.js';
import { outboundFailureMessage } from '../../../src/lib/outbound.js';
import { createPlatformIO } from '../../../src/platforms/io.js';
import { PlatformError, ThreadIncompleteError, type AccountCredentials } from '../../../src/platforms/types.js';
import { solidImage } from '../../fixtures/media.js';
import { startTestPds, type PdsAccount, type TestPds } from '../../helpers/pds.js';
import { publishRequest, testIO } from '../../helpers/platform-io.js';

/** The Bluesky adapter against a real PDS (@atproto/pds + in-memory PLC) on loopback; records are read back from it. */
let pds: TestPds;
let adapter: BlueskyAdapter;
let alice: PdsAccount;
let bob: PdsAccount;
let page: http.Server;
let pageUrl: string;
let pageHits = 0;
let thumb: Buffer;

beforeAll(async () => {
  pds = await startTestPds();
  adapter = createBlueskyAdapter({ serviceUrl: pds.url });
  alice = await pds.createAccount();
  bob = await pds.createAccount();
  thumb = await solidImage(60, 30, 'jpeg');
  page = http.createServer((req, res) => {
    pageHits++;
    if (req.url === '/endless' || req.url === '/endless.jpg') {
      // An answer that never ends: a page or an image of unbounded size, sent as long as it is read.
      const html = req.url === '/endless';
      res.writeHead(200, { 'content-type': html ? 'text/html' : 'image/jpeg' });
      if (html)
        res.write(
          '<html><head><title>Endless page</title><meta property="og:image" content="/endless.jpg"></head><body>',
        );
      const timer = setInterval(() => res.write(Buffer.alloc(64 * 1024, html ? 'a' : 0xff)), 2);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (req.url === '/thumb.jpg') {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': thumb.length });
      return void res.end(thumb);
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      '<html><head><title>Fallback</title><meta property="og:title" content="Herald &amp; friends">' +
        '<meta property="og:description" content="A card for the link"><meta property="og:image" content="/thumb.jpg"></head><body>hi</body></html>',
    );
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', () => r()));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/article`;
}, 60_000);

afterAll(async () => {
  await new Promise((r) => page.close(r));
  await pds.close();
});

async function connect(account: PdsAccount): Promise<AccountCredentials> {
  const { io } = testIO();
  const session = await adapter.createSession(account.handle, account.appPassword, io);
  return {
    accountId: 'acc-1',
    platformUserId: session.profile.platformUserId,
    username: session.profile.username,
    accessToken: session.tokens.accessToken,
    refreshToken: session.tokens.refreshToken ?? null,
    tokenExpiresAt: session.tokens.expiresAt ?? null,
    metadata: session.profile.metadata ?? {},
  };
}

/** The start of an ISO base media file (an `ftyp` box), enough for the PDS to sniff video/mp4. */
/** An IO whose `nth` createRecord call gets `answer()` (a response, or a throw) instead of reaching the PDS. */
function failingCreate(nth: number, answer: () => Response) {
  let creates = 0;
  const io = createPlatformIO({
    now: () => new Date(),
    openMedia: async () => {
      throw new Error('no media');
    },
    fetch: async (input, init) => {
      if (String(input).endsWith('com.atproto.repo.createRecord') && ++creates === nth) return answer();
      return fetch(input, init);
    },
  });
  return { io, creates: () => creates };
}

function mp4Bytes(size: number): Buffer {
  const ftyp = Buffer.concat([
    Buffer.from([0, 0, 0, 0x18]),
    Buffer.from('ftypisom'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isomiso2'),
  ]);
  return Buffer.concat([ftyp, Buffer.alloc(size - ftyp.length, 1)]);
}

const getRecord = (uri: string) => {
  const [, repo, collection, rkey] = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri)!;
  return pds.get('com.atproto.repo.getRecord', { repo, collection, rkey });
};
const listPosts = (did: string) =>
  pds.get('com.atproto.repo.listRecords', { repo: did, collection: 'app.bsky.feed.post', limit: '100' });

/** The text a facet covers, cut out of the record's text by its UTF-8 byte offsets. */
const covered = (text: string, f: { index: { byteStart: number; byteEnd: number } }) =>
  Buffer.from(text, 'utf8').subarray(f.index.byteStart, f.index.byteEnd).toString('utf8');

describe('Bluesky adapter against a real PDS', () => {
  it('creates a session with an app password and records the DID and the PDS', async () => {
    const account = await connect(alice);
    expect(account.platformUserId).toBe(alice.did);
    expect(account.username).toBe(alice.handle);
    expect(account.metadata).toMatchObject({ did: alice.did, handle: alice.handle, pdsUrl: pds.url });
    expect(account.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now());
  });

  it('surfaces a wrong app password as auth with the PDS message', async () => {
    const { io } = testIO();
    const error = await adapter.createSession(alice.handle, 'aaaa-bbbb-cccc-dddd', io).catch((e) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error.kind).toBe('auth');
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/Invalid identifier or password/);
  });

  it('publishes text with a link, a mention and a hashtag at the right UTF-8 byte offsets, once', async () => {
    const account = await connect(alice);
    const text = `Grüße 👋🏽 @${bob.handle} read https://example.com/a?b=1. #héraldTest and @nobody.test`;
    const { io } = testIO();
    const result = await adapter.publish(publishRequest(account, { content: text }), io);
    expect(result.platformPostId).toMatch(new RegExp(`^at://${alice.did}/app\\.bsky\\.feed\\.post/[a-z2-7]{13}$`));
    const rkey = result.platformPostId.split('/').pop();
    expect(result.platformPostUrl).toBe(`https://bsky.app/profile/${alice.handle}/post/${rkey}`);

    const rec = await getRecord(result.platformPostId);
    expect(rec.value.text).toBe(text);
    const facets = rec.value.facets as any[];
    const byType = (t: string) => facets.filter((f) => f.features[0].$type === `app.bsky.richtext.facet#${t}`);
    expect(byType('mention')).toHaveLength(1); // @nobody.test does not resolve: plain text
    expect(covered(text, byType('mention')[0])).toBe(`@${bob.handle}`);
    expect(byType('mention')[0].features[0].did).toBe(bob.did);
    expect(covered(text, byType('link')[0])).toBe('https://example.com/a?b=1');
    expect(byType('link')[0].features[0].uri).toBe('https://example.com/a?b=1');
    expect(covered(text, byType('tag')[0])).toBe('#héraldTest');
    expect(byType('tag')[0].features[0].tag).toBe('héraldTest');
    // Byte offsets differ from UTF-16 indexes after the umlaut and the emoji.
    expect(byType('mention')[0].index.byteStart).toBe(Buffer.byteLength('Grüße 👋🏽 '));
    expect(byType('mention')[0].index.byteStart).not.toBe(text.indexOf('@'));

    const mine = (await listPosts(alice.did)).records.filter((r: any) => r.value.text === text);
    expect(mine).toHaveLength(1);
  });

  it('uploads an image with its alt text (app.bsky.embed.images)', async () => {
    const account = await connect(alice);
    const png = await solidImage(32, 24);
    const { io } = testIO({ 'https://media.test/a.png': { bytes: png, contentType: 'image/png' } });
    const result = await adapter.publish(
      publishRequest(account, {
        content: 'with a picture',
        media: [{ type: 'image', url: 'https://media.test/a.png', altText: 'A pink square' }],
      }),
      io,
    );
    const rec = await getRecord(result.platformPostId);
    expect(rec.value.embed.$type).toBe('app.bsky.embed.images');
    expect(rec.value.embed.images).toHaveLength(1);
    expect(rec.value.embed.images[0].alt).toBe('A pink square');
    expect(rec.value.embed.images[0].image).toMatchObject({ mimeType: 'image/png', size: png.length });
    expect(rec.value.embed.images[0].aspectRatio).toEqual({ width: 32, height: 24 });
    const blob = await fetch(
      `${pds.url}/xrpc/com.atproto.sync.getBlob?did=${alice.did}&cid=${rec.value.embed.images[0].image.ref.$link}`,
    );
    expect(Buffer.from(await blob.arrayBuffer()).equals(png)).toBe(true);
  });

  it('uploads one MP4 video through uploadBlob (app.bsky.embed.video) with its alt text', async () => {
    const account = await connect(alice);
    const mp4 = mp4Bytes(4096);
    const { io } = testIO({ 'https://media.test/v.mp4': { bytes: mp4, contentType: 'video/mp4' } });
    const result = await adapter.publish(
      publishRequest(account, {
        content: 'a clip',
        media: [{ type: 'video', url: 'https://media.test/v.mp4', altText: 'Nothing happens' }],
      }),
      io,
    );
    const rec = await getRecord(result.platformPostId);
    expect(rec.value.embed).toMatchObject({
      $type: 'app.bsky.embed.video',
      alt: 'Nothing happens',
      video: { mimeType: 'video/mp4', size: mp4.length },
    });
  });

  it('refuses five images, or images mixed with a video, before sending anything', async () => {
    const account = await connect(alice);
    const image = (n: number) => ({ type: 'image' as const, url: `https://media.test/${n}.png` });
    const { io, calls } = testIO();
    const five = await adapter
      .publish(publishRequest(account, { media: [1, 2, 3, 4, 5].map(image) }), io)
      .catch((e) => e);
    expect(five.kind).toBe('rejected');
    expect(five.message).toMatch(/at most 4 images/);
    const mixed = await adapter
      .publish(publishRequest(account, { media: [image(1), { type: 'video', url: 'https://media.test/v.mp4' }] }), io)
      .catch((e) => e);
    expect(mixed.kind).toBe('rejected');
    expect(calls).toHaveLength(0);
  });

  it('posts a 3-item thread as replies with root and parent strong refs', async () => {
    const account = await connect(alice);
    const { io: base } = testIO();
    // What the engine would record after each post, before the next is sent.
    const recorded: Array<{ replies: number; cid: unknown }> = [];
    const io = {
      ...base,
      threadProgress: async (p: any) => void recorded.push({ replies: p.replies.length, cid: p.state?.cid }),
    };
    const result = await adapter.publish(
      publishRequest(account, {
        content: 'thread 1/3',
        threadItems: [
          { content: 'thread 2/3', media: [] },
          { content: 'thread 3/3', media: [] },
        ],
      }),
      io,
    );
    const replies = result.extra!.replies as string[];
    expect(replies).toHaveLength(2);
    const root = await getRecord(result.platformPostId);
    const second = await getRecord(replies[0]);
    const third = await getRecord(replies[1]);
    expect(root.value.reply).toBeUndefined();
    expect(second.value.text).toBe('thread 2/3');
    expect(second.value.reply).toEqual({
      root: { uri: root.uri, cid: root.cid },
      parent: { uri: root.uri, cid: root.cid },
    });
    expect(third.value.reply).toEqual({
      root: { uri: root.uri, cid: root.cid },
      parent: { uri: second.uri, cid: second.cid },
    });
    expect(recorded).toEqual([0, 1, 2].map((replies) => ({ replies, cid: root.cid })));

    // Unpublishing the thread removes the replies too.
    await adapter.unpublish!(account, result.platformPostId, io);
    const left = (await listPosts(alice.did)).records.map((r: any) => r.uri);
    for (const uri of [result.platformPostId, ...replies]) expect(left).not.toContain(uri);
  });

  it('stops a thread whose reply fails after the root is public, and continues it later without posting the root again', async () => {
    const account = await connect(alice);
    // The third createRecord (the second reply) is refused; everything else reaches the PDS.
    const { io, creates } = failingCreate(
      3,
      () =>
        new Response(JSON.stringify({ error: 'InternalServerError', message: 'try later' }), {
          status: 502,
          headers: { 'content-type': 'application/json' },
        }),
    );
    const content = `partial ${Date.now()}`;
    const req = publishRequest(account, {
      content,
      threadItems: [
        { content: 'two', media: [] },
        { content: 'three', media: [] },
        { content: 'four', media: [] },
      ],
    });
    const error = await adapter.publish(req, io).catch((e) => e);
    expect(error).toBeInstanceOf(ThreadIncompleteError);
    expect(error.kind).toBe('unavailable'); // the failed reply's own kind: the engine retries it
    expect(error.message).toMatch(/after 1 of 3 replies/);
    expect(creates()).toBe(3); // nothing after the failed reply
    const root = await getRecord(error.progress.platformPostId);
    expect(root.value.text).toBe(content);
    expect(error.progress.replies).toHaveLength(1);

    const result = await adapter.publish({ ...req, resume: error.progress }, io);
    expect(creates()).toBe(5); // 'three' and 'four' only
    expect(result.platformPostId).toBe(root.uri);
    const replies = result.extra!.replies as string[];
    expect(replies).toHaveLength(3);
    expect(replies[0]).toBe(error.progress.replies[0].id);
    const [two, three, four] = await Promise.all(replies.map(getRecord));
    expect([two, three, four].map((r) => r.value.text)).toEqual(['two', 'three', 'four']);
    expect(three.value.reply).toEqual({
      root: { uri: root.uri, cid: root.cid },
      parent: { uri: two.uri, cid: two.cid },
    });
    expect(four.value.reply).toEqual({
      root: { uri: root.uri, cid: root.cid },
      parent: { uri: three.uri, cid: three.cid },
    });
    const roots = (await listPosts(alice.did)).records.filter((r: any) => r.value.text === content);
    expect(roots).toHaveLength(1);
  });

  it('reports a reply whose outcome is unknown as rejected, so nothing re-sends it by itself', async () => {
    const account = await connect(alice);
    const { io } = failingCreate(2, () => {
      throw new TypeError('socket hang up');
    });
    const req = publishRequest(account, {
      content: `unknown ${Date.now()}`,
      threadItems: [{ content: 'two', media: [] }],
    });
    const error = await adapter.publish(req, io).catch((e) => e);
    expect(error).toBeInstanceOf(ThreadIncompleteError);
    expect(error.kind).toBe('rejected');
    expect(error.platformCode).toBe('thread_reply_unknown');
    expect(error.message).toMatch(/reply 1 may or may not have been posted/);
  });

  it('adds a link card with the og:image as thumbnail for the first link when the post has no media', async () => {
    const account = await connect(alice);
    const { io } = testIO();
    const result = await adapter.publish(publishRequest(account, { content: `Read this: ${pageUrl}` }), io);
    const rec = await getRecord(result.platformPostId);
    expect(rec.value.embed).toMatchObject({
      $type: 'app.bsky.embed.external',
      external: { uri: pageUrl, title: 'Herald & friends', description: 'A card for the link' },
    });
    expect(rec.value.embed.external.thumb).toMatchObject({ mimeType: 'image/jpeg', size: thumb.length });
  });

  it('reads only the head of a linked page, and drops an image of unbounded size from the card', async () => {
    const account = await connect(alice);
    const { io, calls } = testIO();
    const endless = pageUrl.replace('/article', '/endless');
    const result = await adapter.publish(publishRequest(account, { content: `Never ends: ${endless}` }), io);
    const rec = await getRecord(result.platformPostId);
    expect(rec.value.embed).toEqual({
      $type: 'app.bsky.embed.external',
      external: { uri: endless, title: 'Endless page', description: '' },
    });
    // Both were fetched; the log keeps the start of each answer.
    const page = calls.find((c) => c.endpoint === endless);
    expect(page?.responsePreview).toMatch(/^<html><head><title>Endless page/);
    expect(page?.responsePreview).toHaveLength(5000);
    expect(calls.some((c) => c.endpoint.endsWith('/endless.jpg') && c.statusCode === 200)).toBe(true);
  });

  it('does not read pages on private addresses for a link card unless allowed', async () => {
    const account = await connect(alice);
    const { io, calls } = testIO({}, { allowPrivate: false });
    const before = pageHits;
    const result = await adapter.publish(publishRequest(account, { content: `internal: ${pageUrl}` }), io);
    const rec = await getRecord(result.platformPostId);
    expect(rec.value.embed).toEqual({
      $type: 'app.bsky.embed.external',
      external: { uri: pageUrl, title: '127.0.0.1', description: '' },
    });
    // The refusal is in the log with the one neutral message, and the page's server saw nothing.
    expect(calls.filter((c) => c.endpoint.startsWith(pageUrl)).map((c) => [c.statusCode, c.error])).toEqual([
      [null, outboundFailureMessage(pageUrl)],
    ]);
    expect(pageHits).toBe(before);
  });

  it('rejects text over 300 graphemes before sending anything', async () => {
    const account = await connect(alice);
    const before = (await listPosts(alice.did)).records.length;
    const { io, calls } = testIO();
    const error = await adapter.publish(publishRequest(account, { content: 'é'.repeat(301) }), io).catch((e) => e);
    expect(error.kind).toBe('rejected');
    expect(calls).toHaveLength(0);
    expect((await listPosts(alice.did)).records.length).toBe(before);
  });

  it('answers an expired access JWT with auth, and refreshTokens gets a working session', async () => {
    const account = await connect(alice);
    const expired = { ...account, accessToken: pds.expiredAccessJwt(account.accessToken!) };
    const { io } = testIO();
    const error = await adapter.publish(publishRequest(expired, { content: 'after expiry' }), io).catch((e) => e);
    expect(error.kind).toBe('auth');
    expect(error.platformCode).toBe('ExpiredToken');
    expect(error.revoked).toBe(false);

    const tokens = await adapter.refreshTokens!(expired, io);
    // The refresh JWT rotates (the PDS keeps the old one valid for a short grace period).
    expect(tokens.refreshToken).not.toBe(account.refreshToken);
    expect(tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    const result = await adapter.publish(
      publishRequest({ ...expired, accessToken: tokens.accessToken }, { content: 'after refresh' }),
      io,
    );
    expect((await getRecord(result.platformPostId)).value.text).toBe('after refresh');
  });

  it('reports a revoked session as auth with revoked set', async () => {
    const account = await connect(alice);
    const { io } = testIO();
    await fetch(`${pds.url}/xrpc/com.atproto.server.deleteSession`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.refreshToken}` },
    });
    const error = await adapter.refreshTokens!(account, io).catch((e) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error.kind).toBe('auth');
    expect(error.revoked).toBe(true);
    expect(error.platformCode).toMatch(/ExpiredToken|InvalidToken/);
  });

  it('finds a published post by its text and deletes it', async () => {
    const account = await connect(alice);
    const { io } = testIO();
    const req = publishRequest(account, { content: `find me ${Date.now()}` });
    const since = new Date(Date.now() - 60_000);
    expect(await adapter.findPublished!(req, since, io)).toBeNull();
    const result = await adapter.publish(req, io);
    const found = await adapter.findPublished!(req, since, io);
    expect(found?.platformPostId).toBe(result.platformPostId);
    expect(found?.platformPostUrl).toBe(result.platformPostUrl);

    await adapter.unpublish!(account, result.platformPostId, io);
    await expect(getRecord(result.platformPostId)).rejects.toThrow(/RecordNotFound|Could not locate/);
    expect(await adapter.findPublished!(req, since, io)).toBeNull();
  });
});
