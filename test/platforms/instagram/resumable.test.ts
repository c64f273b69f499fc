import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInstagramAdapter } from '../../../src/platforms/instagram/index.js';
import type { AccountCredentials, PlatformAdapter } from '../../../src/platforms/types.js';
import { instagramSimulator } from '../../../src/sandbox/instagram/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { connectVia, postingAdapter, publishRequest, testIO } from '../../helpers/platform-io.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * Instagram's resumable video upload (INSTAGRAM_VIDEO_UPLOAD=resumable) against the simulator: the
 * container is made with upload_type=resumable, the bytes go to rupload (/ig-api-upload/{version}/{id},
 * Authorization: OAuth, offset, file_size) in chunks, and the container is published once processed. The
 * simulator refuses an upload without those headers, at the wrong offset or with another token.
 */

let sandbox: SandboxServer;
let base = '';
let adapter: PlatformAdapter;
let account: AccountCredentials;
const clip = randomBytes(9 * 1024 * 1024 + 123);
const files = { 'https://media.test/reel.mp4': { bytes: clip, contentType: 'video/mp4' } };
const io = () => testIO(files).io;

beforeAll(async () => {
  sandbox = await startSandbox([instagramSimulator()]);
  base = `${sandbox.url}/sandbox/instagram`;
  await sandboxCall(sandbox, 'POST', '/sandbox/instagram/_config', { processingMs: 0 });
  adapter = createInstagramAdapter({
    login: 'facebook',
    apiUrl: base,
    authUrl: base,
    tokenUrl: base,
    version: 'v24.0',
    appId: '100000000000001',
    appSecret: 's',
    scopes: [],
    videoUpload: 'resumable',
    ruploadUrl: base,
  });
  const { account: user, tokens, profile } = await connectVia(adapter.oauth!, io());
  const [first] = await adapter.destinations!.list(tokens, io());
  const selection = await adapter.destinations!.select(first, { profile, tokens }, io());
  account = {
    ...user,
    accessToken: selection.tokens!.accessToken,
    refreshToken: selection.tokens!.refreshToken ?? null,
    metadata: { ...user.metadata, ...selection.metadata },
  };
});
afterAll(async () => sandbox?.close());

const rupload = (id: string, headers: Record<string, string>, body: Buffer) =>
  fetch(`${base}/ig-api-upload/v24.0/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', ...headers },
    body: new Uint8Array(body),
  });

describe('Instagram resumable video upload', () => {
  it('publishes a reel whose bytes Herald sends to rupload in chunks, with no video_url', async () => {
    const req = publishRequest(account, {
      media: [{ type: 'video', url: 'https://media.test/reel.mp4', mimeType: 'video/mp4' }],
    });
    const { io: callsIo, calls } = testIO(files);
    const posted = await postingAdapter(adapter).publish(req, callsIo);
    const [reel] = ((await sandboxCall(sandbox, 'GET', '/sandbox/instagram/_inspect')).posts as any[]).filter(
      (p) => p.text === req.content,
    );
    expect(reel).toMatchObject({
      id: posted.platformPostId,
      media: [{ type: 'video', size: clip.length }],
      extra: { kind: 'REELS' },
    });
    // Two chunks of at most 8 MiB, each at its offset.
    expect(calls.filter((c) => c.endpoint.includes('ig-api-upload')).map((c) => c.statusCode)).toEqual([200, 200]);
  });

  it('refuses an upload without Authorization: OAuth, without offset and file_size, or at the wrong offset', async () => {
    const token = account.accessToken!;
    const made = await fetch(`${base}/v24.0/${account.metadata.igUserId}/media`, {
      method: 'POST',
      headers: { authorization: `OAuth ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ media_type: 'REELS', upload_type: 'resumable' }),
    });
    const { id } = (await made.json()) as { id: string };
    const bytes = randomBytes(1000);
    expect((await rupload(id, { offset: '0', file_size: '1000' }, bytes)).status).toBe(401);
    expect((await rupload(id, { authorization: 'OAuth nope', offset: '0', file_size: '1000' }, bytes)).status).toBe(
      401,
    );
    const noHeaders = await rupload(id, { authorization: `OAuth ${token}` }, bytes);
    expect(noHeaders.status).toBe(400);
    expect(((await noHeaders.json()) as any).debug_info.message).toMatch(/offset and file_size/);
    expect(
      (await rupload(id, { authorization: `OAuth ${token}`, offset: '10', file_size: '1000' }, bytes)).status,
    ).toBe(400);
    const status = async () =>
      (
        (await (
          await fetch(`${base}/v24.0/${id}?fields=status_code`, { headers: { authorization: `OAuth ${token}` } })
        ).json()) as any
      ).status_code;
    expect(await status()).toBe('IN_PROGRESS');
    expect((await rupload(id, { authorization: `OAuth ${token}`, offset: '0', file_size: '1000' }, bytes)).status).toBe(
      200,
    );
    expect(await status()).toBe('FINISHED');
  });
});
