import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacebookAdapter } from '../../../src/platforms/facebook/index.js';
import type { AccountCredentials, PlatformAdapter, PublishResult } from '../../../src/platforms/types.js';
import { facebookSimulator } from '../../../src/sandbox/facebook/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { connectVia, pngBytes, postingAdapter, publishRequest, testIO } from '../../helpers/platform-io.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * The Facebook lookup after an unknown outcome, against the simulator: each kind of Page post is found
 * where Facebook lists it (published_posts, videos, video_reels, stories) by its text, an item without
 * text only when it is the one such item since the attempt, and anything else is certainly not there.
 */

let sandbox: SandboxServer;
let adapter: PlatformAdapter;
let account: AccountCredentials;
const files = {
  'https://media.test/a.png': { bytes: pngBytes(3000), contentType: 'image/png' },
  'https://media.test/b.png': { bytes: pngBytes(3000), contentType: 'image/png' },
  'https://media.test/v.mp4': { bytes: randomBytes(200 * 1024), contentType: 'video/mp4' },
};
const io = () => testIO(files).io;
const image = (url = 'https://media.test/a.png') => ({ type: 'image' as const, url, mimeType: 'image/png' });
const video = { type: 'video' as const, url: 'https://media.test/v.mp4', mimeType: 'video/mp4' };

beforeAll(async () => {
  sandbox = await startSandbox([facebookSimulator()]);
  await sandboxCall(sandbox, 'POST', '/sandbox/facebook/_config', { processingMs: 0 });
  const base = `${sandbox.url}/sandbox/facebook`;
  adapter = createFacebookAdapter({
    apiUrl: base,
    authUrl: base,
    version: 'v24.0',
    appId: '100000000000001',
    appSecret: 's',
    scopes: ['pages_manage_posts'],
    chunkBytes: 64 * 1024,
  });
  const { account: user, tokens, profile } = await connectVia(adapter.oauth!, io());
  const [page] = await adapter.destinations!.list(tokens, io());
  const selection = await adapter.destinations!.select(page, { profile, tokens }, io());
  account = {
    ...user,
    accessToken: selection.tokens!.accessToken,
    refreshToken: selection.tokens!.refreshToken ?? null,
    metadata: { ...user.metadata, ...selection.metadata },
  };
});
afterAll(async () => sandbox?.close());

describe('Facebook lookup after an unknown outcome', () => {
  it('finds a feed post, a video and a reel by their text, and not a text never posted', async () => {
    const since = new Date(Date.now() - 1000);
    const posting = postingAdapter(adapter);
    const kinds = [
      publishRequest(account, { media: [image()] }),
      publishRequest(account, { media: [video] }),
      publishRequest(account, { media: [video], platformSpecificData: { contentType: 'reel' } }),
    ];
    for (const req of kinds) {
      const posted: PublishResult = await posting.publish(req, io());
      const found = await adapter.findPublished!(req, since, io());
      expect(found, req.content).toMatchObject({
        platformPostId: posted.platformPostId,
        platformPostUrl: expect.stringMatching(/^https:\/\/www\.facebook\.com\//),
      });
      // The same kind with other text is not there.
      expect(await adapter.findPublished!({ ...req, content: `${req.content} (never sent)` }, since, io())).toBeNull();
    }
  });

  it('finds a story (no text) only when it is the one story of its media type since the attempt', async () => {
    const since = new Date(Date.now() - 1000);
    const story = publishRequest(account, {
      content: '',
      media: [image()],
      platformSpecificData: { contentType: 'story' },
    });
    const posted = await postingAdapter(adapter).publish(story, io());
    expect(await adapter.findPublished!(story, since, io())).toMatchObject({ platformPostId: posted.platformPostId });
    await postingAdapter(adapter).publish({ ...story, media: [image('https://media.test/b.png')] }, io());
    expect(await adapter.findPublished!(story, since, io())).toBeNull();
  });

  it('reads the lists as the Graph specs allow: a parameter a list edge does not define is refused', async () => {
    const res = await fetch(
      `${sandbox.url}/sandbox/facebook/v24.0/${account.metadata.pageId}/published_posts?colour=blue`,
      { headers: { authorization: `OAuth ${account.accessToken}` } },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ code: 100, message: expect.stringContaining('colour') });
  });
});
