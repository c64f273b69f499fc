import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSnapchatAdapter } from '../../../src/platforms/snapchat/index.js';
import {
  isProcessingStarted,
  PlatformError,
  type AccountCredentials,
  type PlatformAdapter,
} from '../../../src/platforms/types.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { snapchatSimulator } from '../../../src/sandbox/snapchat/index.js';
import { fakeMp4 } from '../../helpers/mp4.js';
import { connectVia, pngBytes, publishRequest, testIO } from '../../helpers/platform-io.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * The Snapchat adapter on what the contract suite does not reach: the upload cut into parts, a media
 * still processing and one whose processing fails, the checks made before anything is uploaded, and an
 * account without a selected public profile.
 */

let sandbox: SandboxServer;
let adapter: PlatformAdapter;
let account: AccountCredentials;
const VIDEO = 'https://media.test/snap.mp4';
const IMAGE = 'https://media.test/snap.png';
const files = {
  [VIDEO]: { bytes: fakeMp4({ seconds: 12, width: 1080, height: 1920, size: 150_000 }), contentType: 'video/mp4' },
  [IMAGE]: { bytes: pngBytes(5000), contentType: 'image/png' },
};
const io = () => testIO(files);
const video = { type: 'video' as const, url: VIDEO, mimeType: 'video/mp4' };
const image = { type: 'image' as const, url: IMAGE, mimeType: 'image/png' };
const inspect = async () => (await sandboxCall(sandbox, 'GET', '/sandbox/snapchat/_inspect')).posts as any[];

async function caught(p: Promise<unknown>): Promise<PlatformError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(PlatformError);
  return e as PlatformError;
}

beforeAll(async () => {
  sandbox = await startSandbox([snapchatSimulator()]);
  const base = `${sandbox.url}/sandbox/snapchat`;
  adapter = createSnapchatAdapter({
    apiUrl: base,
    authUrl: base,
    clientId: 'cid',
    clientSecret: 'cs',
    scopes: ['snapchat-profile-api'],
    partBytes: 64 * 1024,
    locale: 'fr_FR',
  });
  const { account: connected, profile, tokens } = await connectVia(adapter.oauth!, io().io);
  const [first] = await adapter.destinations!.list({ accessToken: connected.accessToken! }, io().io);
  const chosen = await adapter.destinations!.select(first, { profile, tokens }, io().io);
  account = { ...connected, metadata: { ...connected.metadata, ...chosen.metadata } };
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_config', { processingMs: 0 });
  await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_faults', { count: 0 });
});

describe('the Snapchat adapter', () => {
  it('encrypts and uploads the file in parts of the configured size, then posts the spotlight in its locale', async () => {
    const { io: mediaIO, calls } = io();
    const result = await adapter.publish(
      publishRequest(account, { media: [video], platformSpecificData: { contentType: 'spotlight' } }),
      mediaIO,
    );
    expect(isProcessingStarted(result)).toBe(false);
    // 150,000 bytes padded to 150,016 by PKCS#7: three parts of at most 64 KiB.
    expect(calls.filter((c) => c.endpoint.endsWith('/multipart-upload-part'))).toHaveLength(3);
    const posted = (await inspect()).find((p) => p.id === (result as any).platformPostId);
    expect(posted.extra).toMatchObject({ contentType: 'spotlight', locale: 'fr_FR', durationSec: 12 });
  });

  it('answers a media still processing with its handle, and posts once processing.check says ready', async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_config', { processingMs: 60_000 });
    const req = publishRequest(account, {
      media: [image],
      platformSpecificData: { contentType: 'saved_story' },
      title: 'Our week',
    });
    const outcome = await adapter.publish(req, io().io);
    if (!isProcessingStarted(outcome)) throw new Error('expected processing');
    expect(outcome.processing.handle).toMatchObject({
      mediaId: expect.any(String),
      profileId: account.metadata.publicProfileId,
    });
    expect(await adapter.processing!.check(outcome.processing.handle, req, io().io)).toMatchObject({
      state: 'processing',
    });
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_config', { processingMs: 0 });
    expect(await adapter.processing!.check(outcome.processing.handle, req, io().io)).toEqual({ state: 'ready' });
    const result = await adapter.processing!.finish(outcome.processing.handle, req, io().io);
    expect((await inspect()).filter((p) => p.id === result.platformPostId)).toMatchObject([
      { text: 'Our week', extra: { contentType: 'saved_story' } },
    ]);
  });

  it("fails the target with Snap's reason when processing fails", async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_faults', { kind: 'rejected', count: 1, op: 'processing' });
    const error = await caught(adapter.publish(publishRequest(account, { media: [image] }), io().io));
    expect(error).toMatchObject({ kind: 'rejected', platformCode: 'TRANSCODING_FAILED' });
  });

  it('refuses before uploading: two media, an image spotlight, a text over 160 characters, no public profile', async () => {
    const { io: checked, calls } = io();
    expect(
      (await caught(adapter.publish(publishRequest(account, { media: [image, image] }), checked))).platformCode,
    ).toBe('media_required');
    expect(
      (
        await caught(
          adapter.publish(
            publishRequest(account, { media: [image], platformSpecificData: { contentType: 'spotlight' } }),
            checked,
          ),
        )
      ).platformCode,
    ).toBe('spotlight_media');
    expect(
      (
        await caught(
          adapter.publish(
            publishRequest(account, {
              media: [video],
              content: 'x'.repeat(161),
              platformSpecificData: { contentType: 'spotlight' },
            }),
            checked,
          ),
        )
      ).message,
    ).toMatch(/160/);
    const bare = { ...account, metadata: {} };
    expect((await caught(adapter.publish(publishRequest(bare, { media: [image] }), checked))).platformCode).toBe(
      'public_profile_required',
    );
    expect(calls).toEqual([]);
  });

  it('cuts a saved story title from the first line to 45 characters', async () => {
    const long = `${'Ünïcode '.repeat(8)}\nsecond line`;
    const result = await adapter.publish(
      publishRequest(account, { media: [image], content: long, platformSpecificData: { contentType: 'saved_story' } }),
      io().io,
    );
    const posted = (await inspect()).find((p) => p.id === (result as any).platformPostId);
    expect(posted.extra.title).toBe([...'Ünïcode '.repeat(8).trim()].slice(0, 45).join(''));
  });

  it('refreshes the token, and a dead refresh token is a revoked auth failure', async () => {
    const fresh = await adapter.refreshTokens!(account, io().io);
    expect(fresh.accessToken).toEqual(expect.any(String));
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_oauth/revoke', {});
    expect(await caught(adapter.refreshTokens!(account, io().io))).toMatchObject({ kind: 'auth', revoked: true });
  });
});
