import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createSlackAdapter, slackOptions, type SlackAdapter } from '../../../src/platforms/slack/index.js';
import { PlatformError, type AccountCredentials } from '../../../src/platforms/types.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { slackSimulator } from '../../../src/sandbox/slack/index.js';
import { connectVia, pngBytes, publishRequest, testIO } from '../../helpers/platform-io.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * The Slack adapter against its simulator: Slack's 429 becomes `rate_limited` with Retry-After as
 * retryAfterMs, text is escaped for mrkdwn, blocks beyond Slack's limits are refused before any call,
 * files go through the external upload (one message, text as comment), thread items are replies of
 * the root, and a lookup finds a post by the metadata it carries.
 */

let sandbox: SandboxServer;
let adapter: SlackAdapter;
let account: AccountCredentials;
const image = 'https://media.test/slack-a.png';
const io = () => testIO({ [image]: { bytes: pngBytes(2500), contentType: 'image/png' } }).io;
const posts = async () => (await sandboxCall(sandbox, 'GET', '/sandbox/slack/_inspect')).posts as any[];

async function caught(p: Promise<unknown>): Promise<PlatformError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

beforeAll(async () => {
  sandbox = await startSandbox([slackSimulator()]);
  adapter = createSlackAdapter(slackOptions(loadConfig({ SANDBOX_URL: sandbox.url })));
  const { account: user, tokens, profile } = await connectVia(adapter.oauth!, io());
  const [general] = await adapter.destinations!.list(tokens, io());
  const selection = await adapter.destinations!.select(general, { profile, tokens }, io());
  account = { ...user, metadata: { ...user.metadata, ...selection.metadata } };
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await sandboxCall(sandbox, 'POST', '/sandbox/slack/_faults', { count: 0 });
  await sandboxCall(sandbox, 'POST', '/sandbox/slack/_config', { rateLimits: false });
});

describe('Slack adapter', () => {
  it("turns Slack's 429 into rate_limited with Retry-After as retryAfterMs", async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/slack/_faults', { kind: 'rate_limited', count: 1 });
    expect(await caught(adapter.publish(publishRequest(account), io()))).toMatchObject({
      kind: 'rate_limited',
      status: 429,
      retryAfterMs: 30_000,
    });
    await sandboxCall(sandbox, 'POST', '/sandbox/slack/_config', { rateLimits: true });
    const outcomes = [];
    for (let i = 0; i < 4; i++)
      outcomes.push(
        await adapter.publish(publishRequest(account, { content: `tick ${i}` }), io()).catch((e: unknown) => e),
      );
    expect(outcomes.slice(0, 3).every((o) => !(o instanceof PlatformError))).toBe(true);
    expect(outcomes[3]).toMatchObject({ kind: 'rate_limited', retryAfterMs: 1000, platformCode: 'ratelimited' });
  });

  it("escapes &, < and > for mrkdwn, and refuses blocks beyond Slack's limits before calling it", async () => {
    const sent = await adapter.publish(publishRequest(account, { content: 'a < b && c > d' }), io());
    const post = (await posts()).find((p) => p.id === sent.platformPostId);
    expect(post).toMatchObject({ text: 'a < b && c > d', extra: { mrkdwn: 'a &lt; b &amp;&amp; c &gt; d' } });
    const before = (await posts()).length;
    const tooMany = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    expect(
      await caught(adapter.publish(publishRequest(account, { platformSpecificData: { blocks: tooMany } }), io())),
    ).toMatchObject({ kind: 'rejected', platformCode: 'invalid_blocks' });
    const longSection = [{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3001) } }];
    expect(
      (await caught(adapter.publish(publishRequest(account, { platformSpecificData: { blocks: longSection } }), io())))
        .kind,
    ).toBe('rejected');
    expect((await posts()).length).toBe(before);
    const fine = await adapter.publish(
      publishRequest(account, {
        platformSpecificData: { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Launch*' } }] },
      }),
      io(),
    );
    expect((await posts()).find((p) => p.id === fine.platformPostId).extra.blocks).toHaveLength(1);
  });

  it('shares files as one message with the text as comment, and threads items as replies of the root', async () => {
    const req = publishRequest(account, {
      content: 'root with a picture',
      media: [{ type: 'image', url: image, mimeType: 'image/png' }],
      threadItems: [
        { content: 'reply one', media: [] },
        { content: 'reply two with a picture', media: [{ type: 'image', url: image, mimeType: 'image/png' }] },
      ],
    });
    const result = await adapter.publish(req, io());
    const all = await posts();
    const root = all.find((p) => p.id === result.platformPostId);
    expect(root).toMatchObject({
      text: 'root with a picture',
      media: [{ type: 'image', mimeType: 'image/png', size: 2500 }],
      replyTo: null,
    });
    expect(all.filter((p) => p.replyTo === root.id).map((p) => [p.text, p.media.length])).toEqual([
      ['reply one', 0],
      ['reply two with a picture', 1],
    ]);
    expect(result.extra).toMatchObject({
      channelId: 'C0GENERAL01',
      replyIds: [expect.any(String), expect.any(String)],
    });
  });

  it('finds a post by the metadata it carries after an ambiguous outcome, and nothing for another', async () => {
    const since = new Date(Date.now() - 1000);
    await sandboxCall(sandbox, 'POST', '/sandbox/slack/_faults', { kind: 'ambiguous', count: 1 });
    const req = publishRequest(account, { content: 'same text twice' });
    expect((await caught(adapter.publish(req, io()))).kind).toBe('ambiguous');
    // Another post with the same text is not this one.
    await adapter.publish(publishRequest(account, { content: 'same text twice' }), io());
    const found = await adapter.findPublished!(req, since, io());
    const mine = (await posts()).find((p) => p.extra.metadata?.event_payload?.idempotency_key === req.idempotencyKey);
    expect(found?.platformPostId).toBe(mine.id);
    expect(await adapter.findPublished!(publishRequest(account), since, io())).toBeNull();
  });

  it('a revoked install is a dead grant, and a rotating token refreshes', async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/slack/_oauth/revoke', {});
    expect(await caught(adapter.publish(publishRequest(account), io()))).toMatchObject({
      kind: 'auth',
      revoked: true,
      platformCode: 'token_revoked',
    });
    expect(await caught(adapter.refreshTokens!(account, io()))).toMatchObject({ kind: 'auth', revoked: true });
    await sandboxCall(sandbox, 'POST', '/sandbox/slack/_config', { tokenRotation: true });
    const { tokens } = await connectVia(adapter.oauth!, io());
    expect(tokens.refreshToken).toMatch(/^xoxe-/);
    const refreshed = await adapter.refreshTokens!(
      { ...account, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken! },
      io(),
    );
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(refreshed.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
  });
});
