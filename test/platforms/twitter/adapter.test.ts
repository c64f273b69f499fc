import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTwitterAdapter, type TwitterOptions } from '../../../src/platforms/twitter/index.js';
import {
  isProcessingStarted,
  PlatformError,
  ThreadIncompleteError,
  type AccountCredentials,
  type PlatformAdapter,
  type ProcessingStarted,
  type PublishResult,
} from '../../../src/platforms/types.js';
import {
  DEFAULT_X_USER,
  expireXAccessTokens,
  externalXPost,
  setXSandboxUser,
  twitterSimulator,
} from '../../../src/sandbox/twitter/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import {
  closedPortUrl,
  connectVia,
  pngBytes,
  publishRequest,
  testIO,
  postingAdapter,
} from '../../helpers/platform-io.js';

const IMAGE = 'https://media.test/cat.png';
const VIDEO = 'https://media.test/clip.mp4';
const files = {
  [IMAGE]: { bytes: pngBytes(3000), contentType: 'image/png' },
  // Larger than one 1 MiB segment, so the upload takes several APPENDs.
  [VIDEO]: { bytes: pngBytes(2.5 * 1024 * 1024), contentType: 'video/mp4' },
};

let sandbox: SandboxServer;
let adapter: PlatformAdapter<PublishResult>;
/** The adapter as the engine sees it (may answer media still processing). */
let raw: PlatformAdapter;
let opts: TwitterOptions;

async function caught(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => null,
    (e) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

beforeAll(async () => {
  sandbox = await startSandbox([twitterSimulator({ checkAfterSecs: 0 })]);
  const base = `${sandbox.url}/sandbox/twitter`;
  opts = { apiUrl: base, authUrl: base, clientId: 'herald-client', clientSecret: 'herald-secret' };
  raw = createTwitterAdapter(opts);
  adapter = postingAdapter(raw);
});

afterAll(async () => {
  await sandbox.close();
});

beforeEach(async () => {
  await fetch(`${sandbox.url}/sandbox/twitter/_reset`, { method: 'POST' });
});

async function connect(): Promise<AccountCredentials> {
  const { io } = testIO(files);
  return (await connectVia(adapter.oauth!, io)).account;
}

describe('X adapter against the X simulator', () => {
  it('connects: the consent page redirects back with a code, exchanged with PKCE for tokens, then the profile', async () => {
    const { io, calls } = testIO();
    const { account, tokens, profile, authUrl } = await connectVia(adapter.oauth!, io);
    const url = new URL(authUrl);
    expect(url.pathname).toBe('/sandbox/twitter/i/oauth2/authorize');
    expect(url.searchParams.get('scope')).toBe(
      'tweet.read tweet.write users.read offline.access media.write dm.read dm.write like.write tweet.moderate.write bookmark.write follows.write',
    );
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(tokens.refreshToken).toBeTruthy();
    expect(tokens.expiresAt!.getTime() - Date.now()).toBeGreaterThan(7000 * 1000);
    expect(profile).toMatchObject({
      platformUserId: '1790000000000000001',
      username: 'herald_sandbox',
      profileUrl: 'https://x.com/herald_sandbox',
    });
    expect(account.accessToken).toBe(tokens.accessToken);
    expect(calls.map((c) => `${c.method} ${new URL(c.endpoint).pathname}`)).toEqual([
      'POST /sandbox/twitter/2/oauth2/token',
      'GET /sandbox/twitter/2/users/me',
    ]);
  });

  it('refuses a code exchanged with the wrong PKCE verifier', async () => {
    const { io } = testIO();
    const authUrl = adapter.oauth!.authorizeUrl({
      state: 's1',
      redirectUri: 'http://127.0.0.1:9/cb',
      codeChallenge: 'A'.repeat(43),
    });
    const consent = await fetch(authUrl, { redirect: 'manual' });
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    const error = await caught(
      adapter.oauth!.exchangeCode({ code, redirectUri: 'http://127.0.0.1:9/cb', codeVerifier: 'wrong' }, io),
    );
    expect(error.kind).toBe('auth');
    expect(error.status).toBe(400);
  });

  it('publishes text with an image: one post on X carrying the uploaded image and its alt text', async () => {
    const account = await connect();
    const { io, calls } = testIO(files);
    const req = publishRequest(account, { media: [{ type: 'image', url: IMAGE, altText: 'a cat' }] });
    const result = await adapter.publish(req, io);
    expect(result.platformPostId).toMatch(/^\d{19}$/);
    expect(result.platformPostUrl).toBe(`https://x.com/herald_sandbox/status/${result.platformPostId}`);
    const posts = sandbox.state('twitter').posts;
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      id: result.platformPostId,
      text: req.content,
      replyTo: null,
      author: 'herald_sandbox',
      media: [{ type: 'image', mimeType: 'image/png', size: 3000, altText: 'a cat' }],
    });
    const paths = calls.map((c) => `${c.method} ${new URL(c.endpoint).pathname.replace('/sandbox/twitter', '')}`);
    expect(paths).toEqual([
      'POST /2/media/upload/initialize',
      expect.stringMatching(/^POST \/2\/media\/upload\/\d+\/append$/),
      expect.stringMatching(/^POST \/2\/media\/upload\/\d+\/finalize$/),
      'POST /2/media/metadata',
      'POST /2/tweets',
    ]);
  });

  it('uploads a video in segments, answers its media id while X processes it, and posts it once STATUS says succeeded', async () => {
    const account = await connect();
    const { io, calls } = testIO(files);
    sandbox.state('twitter').config.processingMs = 0;
    const req = publishRequest(account, { media: [{ type: 'video', url: VIDEO }] });
    const outcome = await raw.publish(req, io);
    expect(isProcessingStarted(outcome)).toBe(true);
    const { handle } = (outcome as ProcessingStarted).processing;
    expect(handle).toMatchObject({ root: [expect.stringMatching(/^\d+$/)], items: [], pending: (handle as any).root });
    const appends = calls.filter((c) => c.endpoint.endsWith('/append'));
    expect(appends).toHaveLength(3);
    expect(sandbox.state('twitter').posts).toHaveLength(0);
    expect(await raw.processing!.check(handle, req, io)).toEqual({ state: 'ready' });
    expect(calls.filter((c) => c.endpoint.endsWith('/2/media/upload') && c.method === 'GET')).toHaveLength(1);
    const result = await raw.processing!.finish(handle, req, io);
    expect(calls.filter((c) => c.endpoint.endsWith('/initialize'))).toHaveLength(1);
    const [post] = sandbox.state('twitter').posts;
    expect(post.id).toBe(result.platformPostId);
    expect(post.media).toEqual([{ type: 'video', mimeType: 'video/mp4', size: files[VIDEO].bytes.length }]);
  });

  it('publishes a thread: each item replies to the previous one', async () => {
    const account = await connect();
    const { io } = testIO(files);
    const req = publishRequest(account, {
      content: 'thread root',
      threadItems: [
        { content: 'second', media: [{ type: 'image', url: IMAGE }] },
        { content: 'third', media: [] },
      ],
    });
    const result = await adapter.publish(req, io);
    const posts = sandbox.state('twitter').posts;
    expect(posts.map((p) => p.text)).toEqual(['thread root', 'second', 'third']);
    expect(posts[0].id).toBe(result.platformPostId);
    expect(posts[1].replyTo).toBe(posts[0].id);
    expect(posts[2].replyTo).toBe(posts[1].id);
    expect(posts[1].media).toHaveLength(1);
    expect(result.extra).toMatchObject({ threadIds: [posts[1].id, posts[2].id] });
  });

  it('stops a thread whose reply fails after the root is public, and continues it later without posting the root again', async () => {
    const account = await connect();
    const { io: base } = testIO(files);
    let creates = 0;
    // The third POST /2/tweets (the second reply) gets a 503; everything else reaches the simulator.
    const io = {
      ...base,
      fetch: (async (input: string | URL | Request, init?: RequestInit) => {
        if (String(input).endsWith('/2/tweets') && init?.method === 'POST' && ++creates === 3) {
          return new Response(JSON.stringify({ title: 'Service Unavailable', status: 503 }), {
            status: 503,
            headers: { 'content-type': 'application/json' },
          });
        }
        return base.fetch(input, init);
      }) as typeof fetch,
    };
    const req = publishRequest(account, {
      content: 'thread root',
      threadItems: [
        { content: 'second', media: [] },
        { content: 'third', media: [] },
        { content: 'fourth', media: [] },
      ],
    });
    const error = (await adapter.publish(req, io).catch((e) => e)) as ThreadIncompleteError;
    expect(error).toBeInstanceOf(ThreadIncompleteError);
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/after 1 of 3 replies/);
    let posts = sandbox.state('twitter').posts;
    expect(posts.map((p) => p.text)).toEqual(['thread root', 'second']);
    expect(error.progress).toMatchObject({ platformPostId: posts[0].id, replies: [{ id: posts[1].id }] });

    const result = await adapter.publish({ ...req, resume: error.progress }, io);
    posts = sandbox.state('twitter').posts;
    expect(posts.map((p) => p.text)).toEqual(['thread root', 'second', 'third', 'fourth']);
    expect(posts[2].replyTo).toBe(posts[1].id);
    expect(posts[3].replyTo).toBe(posts[2].id);
    expect(result.platformPostId).toBe(posts[0].id);
    expect(result.extra).toMatchObject({ threadIds: [posts[1].id, posts[2].id, posts[3].id] });
  });

  it('sends replyToTweetId and replySettings', async () => {
    const account = await connect();
    const { io } = testIO();
    const first = await adapter.publish(publishRequest(account), io);
    await adapter.publish(
      publishRequest(account, {
        platformSpecificData: { replyToTweetId: first.platformPostId, replySettings: 'mentionedUsers' },
      }),
      io,
    );
    const second = sandbox.state('twitter').posts[1];
    expect(second.replyTo).toBe(first.platformPostId);
    expect(second.extra).toMatchObject({ replySettings: 'mentionedUsers' });
  });

  it('rejects text over 280 weighted characters before calling X', async () => {
    const account = await connect();
    const { io, calls } = testIO();
    const error = await caught(adapter.publish(publishRequest(account, { content: '漢'.repeat(141) }), io));
    expect(error.kind).toBe('rejected');
    expect(calls).toHaveLength(0);
  });

  it('an expired access token is an auth error that a refresh fixes (the refresh token rotates)', async () => {
    const account = await connect();
    const { io } = testIO();
    expireXAccessTokens(sandbox.state('twitter'));
    const error = await caught(adapter.publish(publishRequest(account), io));
    expect(error).toMatchObject({ kind: 'auth', status: 401, revoked: false });
    const tokens = await adapter.refreshTokens!(account, io);
    expect(tokens.accessToken).not.toBe(account.accessToken);
    expect(tokens.refreshToken).toBeTruthy();
    const refreshed = { ...account, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken! };
    await adapter.publish(publishRequest(refreshed), io);
    expect(sandbox.state('twitter').posts).toHaveLength(1);
    // The old refresh token was rotated away.
    const stale = await caught(adapter.refreshTokens!(account, io));
    expect(stale).toMatchObject({ kind: 'auth', revoked: true });
  });

  it('a revoked grant: publishing is auth, and the refresh says revoked', async () => {
    const account = await connect();
    const { io } = testIO();
    const res = await fetch(`${opts.apiUrl}/2/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: account.refreshToken!, client_id: 'herald-client' }),
    });
    expect(res.status).toBe(200);
    expect((await caught(adapter.publish(publishRequest(account), io))).kind).toBe('auth');
    const error = await caught(adapter.refreshTokens!(account, io));
    expect(error).toMatchObject({ kind: 'auth', revoked: true, status: 400 });
    expect(sandbox.state('twitter').posts).toHaveLength(0);
  });

  it('a token endpoint outage is unavailable (retry later), not a revoke', async () => {
    const account = await connect();
    const { io } = testIO();
    await fetch(`${opts.apiUrl}/_oauth/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'unavailable', count: 1 }),
    });
    expect(await caught(adapter.refreshTokens!(account, io))).toMatchObject({
      kind: 'unavailable',
      revoked: false,
      status: 503,
    });
    // The grant survived the outage.
    expect((await adapter.refreshTokens!(account, io)).accessToken).toBeTruthy();
  });

  it('the sandbox control /_oauth/revoke ends every grant of the user', async () => {
    const account = await connect();
    const { io } = testIO();
    await fetch(`${opts.apiUrl}/_oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userId: account.platformUserId }),
    });
    expect((await caught(adapter.publish(publishRequest(account), io))).kind).toBe('auth');
    expect(await caught(adapter.refreshTokens!(account, io))).toMatchObject({ kind: 'auth', revoked: true });
  });

  it('a connection refused before sending is unavailable, not ambiguous', async () => {
    const account = await connect();
    const closed = postingAdapter(createTwitterAdapter({ ...opts, apiUrl: await closedPortUrl() }));
    const { io } = testIO();
    expect((await caught(closed.publish(publishRequest(account), io))).kind).toBe('unavailable');
  });

  it('reads the legacy errors[] body and a 429 without reset header', async () => {
    const { mapXError } = await import('../../../src/platforms/twitter/api.js');
    const e = mapXError(
      429,
      new Headers(),
      { errors: [{ code: 88, message: 'Rate limit exceeded' }] },
      '',
      '/2/tweets',
      new Date(),
    );
    expect(e).toMatchObject({
      kind: 'rate_limited',
      message: 'Rate limit exceeded',
      platformCode: '88',
      retryAfterMs: null,
    });
    expect(mapXError(502, new Headers(), null, '', '/2/tweets', new Date()).kind).toBe('unavailable');
    expect(
      mapXError(400, new Headers(), { title: 'Invalid Request', detail: 'bad' }, '', '/2/tweets', new Date()).kind,
    ).toBe('rejected');
  });

  it('rate_limited carries retryAfterMs from x-rate-limit-reset, and nothing is posted', async () => {
    const account = await connect();
    const { io } = testIO();
    await fetch(`${sandbox.url}/sandbox/twitter/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'rate_limited', count: 1 }),
    });
    const error = await caught(adapter.publish(publishRequest(account), io));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(55_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(61_000);
    expect(sandbox.state('twitter').posts).toHaveLength(0);
  });

  it('maps the other faults: unavailable (503), rejected (403 duplicate), auth (401)', async () => {
    const account = await connect();
    const { io } = testIO();
    const kinds: Record<string, string> = {};
    for (const kind of ['unavailable', 'rejected', 'auth']) {
      await fetch(`${sandbox.url}/sandbox/twitter/_faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind, count: 1 }),
      });
      const error = await caught(adapter.publish(publishRequest(account), io));
      kinds[kind] = `${error.kind}/${error.status}`;
    }
    expect(kinds).toEqual({ unavailable: 'unavailable/503', rejected: 'rejected/403', auth: 'auth/401' });
    expect(sandbox.state('twitter').posts).toHaveLength(0);
  });

  it('a real duplicate is rejected with platformCode duplicate', async () => {
    const account = await connect();
    const { io } = testIO();
    await adapter.publish(publishRequest(account, { content: 'same words' }), io);
    const error = await caught(adapter.publish(publishRequest(account, { content: 'same words' }), io));
    expect(error).toMatchObject({ kind: 'rejected', platformCode: 'duplicate' });
  });

  it('ambiguous: the simulator records the post and hangs up; findPublished finds it', async () => {
    const account = await connect();
    const { io } = testIO();
    const since = new Date();
    await fetch(`${sandbox.url}/sandbox/twitter/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'ambiguous', count: 1 }),
    });
    const req = publishRequest(account, { content: 'did it go out? https://example.com/a' });
    const error = await caught(adapter.publish(req, io));
    expect(error.kind).toBe('ambiguous');
    const posts = sandbox.state('twitter').posts;
    expect(posts).toHaveLength(1);
    const found = await adapter.findPublished!(req, since, io);
    expect(found).toEqual({
      platformPostId: posts[0].id,
      platformPostUrl: `https://x.com/herald_sandbox/status/${posts[0].id}`,
    });
    expect(await adapter.findPublished!(publishRequest(account, { content: 'never sent' }), since, io)).toBeNull();
  });

  it('unpublish deletes the post', async () => {
    const account = await connect();
    const { io } = testIO();
    const result = await adapter.publish(publishRequest(account), io);
    await adapter.unpublish!(account, result.platformPostId, io);
    expect(sandbox.state('twitter').posts[0].deleted).toBe(true);
    expect((await caught(adapter.unpublish!(account, result.platformPostId, io))).status).toBe(404);
  });

  it('edits a post and a self-thread reply into new versions, never a reply to someone else; deleting one version deletes all', async () => {
    setXSandboxUser(sandbox.state('twitter'), {
      id: '43',
      username: 'premium_user',
      name: 'P',
      subscriptionType: 'Premium',
    });
    const account = await connect();
    const { io } = testIO(files);
    const editOf = (platformPostId: string, content: string) =>
      raw.editText!(
        { account, platformPostId, platformPostUrl: null, content, hasMedia: false, platformSpecificData: {} },
        io,
      );
    const thread = await adapter.publish(
      publishRequest(account, { content: 'root', threadItems: [{ content: 'own reply', media: [] }] }),
      io,
    );
    const replyId = (thread.extra!.threadIds as string[])[0];
    const edited = await editOf(replyId, 'own reply, edited');
    expect(edited.platformPostId).not.toBe(replyId);
    expect(edited.platformPostUrl).toBe(`https://x.com/premium_user/status/${edited.platformPostId}`);
    const root = await editOf(thread.platformPostId, 'root, edited');
    const again = await editOf(root.platformPostId, 'root, edited twice');
    // An older version is not the one to edit.
    expect((await caught(editOf(root.platformPostId, 'from an old version'))).message).toMatch(/latest version/);

    const other = externalXPost(sandbox.state('twitter'), DEFAULT_X_USER.id, 'someone else', Date.now());
    const answer = await adapter.publish(
      publishRequest(account, { content: 'my answer', platformSpecificData: { replyToTweetId: other } }),
      io,
    );
    const refusal = await caught(editOf(answer.platformPostId, 'my answer, edited'));
    expect([refusal.kind, refusal.status]).toEqual(['rejected', 403]);
    expect(refusal.message).toMatch(/reply to another account/);

    await adapter.unpublish!(account, again.platformPostId, io);
    const versions = [thread.platformPostId, root.platformPostId, again.platformPostId];
    const posts = sandbox.state('twitter').posts.filter((p) => versions.includes(p.id));
    expect(posts.map((p) => [p.text, p.deleted])).toEqual([
      ['root', true],
      ['root, edited', true],
      ['root, edited twice', true],
    ]);
  });

  it('posts as whichever user approved the consent', async () => {
    setXSandboxUser(sandbox.state('twitter'), { id: '42', username: 'other_user', name: 'Other' });
    const account = await connect();
    expect(account).toMatchObject({ platformUserId: '42', username: 'other_user' });
  });
});

describe('X simulator validation against the OpenAPI document', () => {
  async function token(): Promise<string> {
    return (await connect()).accessToken!;
  }

  it('rejects a body that violates TweetCreateRequest, in X problem format, and records nothing', async () => {
    const res = await fetch(`${opts.apiUrl}/2/tweets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi', reply_settings: 'everyone', media: { media_ids: [] } }),
    });
    expect(res.status).toBe(400);
    const body: any = await res.json();
    expect(body).toMatchObject({
      title: 'Invalid Request',
      type: 'https://api.twitter.com/2/problems/invalid-request',
    });
    expect(body.errors.map((e: { parameters: object }) => Object.keys(e.parameters)[0]).sort()).toEqual([
      'body.media.media_ids',
      'body.reply_settings',
    ]);
    expect(sandbox.state('twitter').posts).toHaveLength(0);
  });

  it('rejects unknown query parameters and out-of-range values', async () => {
    const t = await token();
    const res = await fetch(`${opts.apiUrl}/2/users/1790000000000000001/tweets?max_results=500&colour=blue`, {
      headers: { authorization: `Bearer ${t}` },
    });
    expect(res.status).toBe(400);
    const body: any = await res.json();
    expect(body.errors.map((e: { message: string }) => e.message).join('\n')).toMatch(/\[colour\] is not one of/);
    expect(body.errors.some((e: { parameters: object }) => 'max_results' in e.parameters)).toBe(true);
  });

  it('rejects a media id that is not numeric', async () => {
    const res = await fetch(`${opts.apiUrl}/2/media/upload/abc/finalize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token()}` },
    });
    expect(res.status).toBe(400);
  });

  it('answers 401 without a valid token', async () => {
    const res = await fetch(`${opts.apiUrl}/2/users/me`, { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ title: 'Unauthorized', status: 401 });
  });
});

describe('X simulator responses follow the OpenAPI document', () => {
  it('answers users/me, create, list and delete in the documented shapes', async () => {
    const { responseValidator, xOpenApi } = await import('../../../src/sandbox/twitter/openapi.js');
    const api = xOpenApi();
    const account = await connect();
    const auth = { authorization: `Bearer ${account.accessToken}` };
    const me = await (
      await fetch(`${opts.apiUrl}/2/users/me?user.fields=profile_image_url,verified`, { headers: auth })
    ).json();
    expect(responseValidator(api, 'get', '/2/users/me', 200)(me)).toEqual([]);
    const created = await fetch(`${opts.apiUrl}/2/tweets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'shape check' }),
    });
    expect(created.status).toBe(201);
    const body: any = await created.json();
    expect(responseValidator(api, 'post', '/2/tweets', 201)(body)).toEqual([]);
    const list = await (
      await fetch(`${opts.apiUrl}/2/users/${account.platformUserId}/tweets?tweet.fields=created_at`, { headers: auth })
    ).json();
    expect(responseValidator(api, 'get', '/2/users/{id}/tweets', 200)(list)).toEqual([]);
    const deleted = await (
      await fetch(`${opts.apiUrl}/2/tweets/${body.data.id}`, { method: 'DELETE', headers: auth })
    ).json();
    expect(responseValidator(api, 'delete', '/2/tweets/{id}', 200)(deleted)).toEqual([]);
    // The validator is not a rubber stamp.
    expect(responseValidator(api, 'post', '/2/tweets', 201)({ data: { id: 'abc' } })).not.toEqual([]);
  });
});
