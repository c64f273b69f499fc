import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validatePost } from '../../src/domain/posts/validate/index.js';
import { mediaLimits } from '../../src/domain/media/limits.js';
import { CATALOGUE, descriptorOf, PLATFORMS } from '../../src/platforms/catalogue.js';
import { createLinkedInAdapter } from '../../src/platforms/linkedin/index.js';
import { createTelegramAdapter } from '../../src/platforms/telegram/index.js';
import { PlatformError, type PlatformIO, type PublishRequest } from '../../src/platforms/types.js';
import { loadConfig } from '../../src/config.js';

/* The catalogue is the one list of platforms: validation and the adapters count text with its rules. */

const refuse = (async () => {
  throw new Error('the adapter called the platform for a text it should have refused');
}) as never;
const noNetwork: PlatformIO = {
  fetch: refuse,
  fetchUrl: refuse,
  now: () => new Date('2026-03-02T10:00:00Z'),
  openMedia: async () => {
    throw new Error('no media');
  },
};

function request(content: string, metadata: Record<string, unknown> = {}): PublishRequest {
  return {
    account: {
      accountId: 'a',
      platformUserId: '42',
      username: 'u',
      accessToken: 't',
      refreshToken: null,
      tokenExpiresAt: null,
      metadata,
    },
    content,
    media: [],
    threadItems: [],
    platformSpecificData: {},
    idempotencyKey: 'k',
  };
}

async function textIssues(platform: string, content: string) {
  const { issues } = await validatePost({ content, platforms: [{ platform }] });
  return issues.filter((i) => i.rule === 'text_length');
}

describe('the platform catalogue', () => {
  it("lists the spec's 13 platforms and the hosted API's added ones once each, in order, and nothing else names them", () => {
    expect(PLATFORMS).toHaveLength(15);
    expect(new Set(PLATFORMS).size).toBe(15);
    expect(PLATFORMS.slice(13)).toEqual(['discord', 'slack']);
    expect(PLATFORMS[0]).toBe('twitter');
    for (const d of CATALOGUE) expect(descriptorOf(d.id)).toBe(d);
    expect(descriptorOf('myspace')).toBeUndefined();
    expect(descriptorOf('constructor')).toBeUndefined();
  });

  it('media limits come from the descriptor (and depend on platformSpecificData where the platform says)', () => {
    expect(mediaLimits('bluesky').image?.maxBytes).toBe(1_000_000);
    expect(mediaLimits('facebook', { contentType: 'story' }).image?.minWidth).toBe(500);
    expect(mediaLimits('facebook').image?.minWidth).toBe(200);
    expect(mediaLimits('nowhere')).toEqual({});
  });

  it('LinkedIn counts its 3,000 characters in UTF-16 units in validation and in the adapter alike', async () => {
    const atLimit = '😀'.repeat(1500); // 1,500 code points, 3,000 UTF-16 units
    const over = '😀'.repeat(1501); // 1,501 code points, 3,002 UTF-16 units
    expect(await textIssues('linkedin', atLimit)).toEqual([]);
    const refused = await textIssues('linkedin', over);
    expect(refused).toHaveLength(1);
    expect(refused[0].message).toMatch(/3002 characters \(UTF-16 units\); the limit is 3000/);

    const adapter = createLinkedInAdapter({
      apiUrl: 'http://127.0.0.1:9',
      authUrl: 'http://127.0.0.1:9',
      clientId: 'c',
      clientSecret: 's',
      version: '202601',
      scopes: [],
    });
    const error = await adapter.publish(request(over), noNetwork).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).kind).toBe('rejected');
    expect((error as PlatformError).message).toMatch(/3002 characters \(UTF-16 units\); the limit is 3000/);
  });

  it('Telegram counts its 4,096 characters in UTF-16 units in validation and in the adapter alike', async () => {
    const over = '😀'.repeat(2049); // 2,049 code points, 4,098 UTF-16 units
    expect(await textIssues('telegram', '😀'.repeat(2048))).toEqual([]);
    expect(await textIssues('telegram', over)).toHaveLength(1);
    const config = loadConfig({ TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_API_URL: 'http://127.0.0.1:9' });
    const adapter = createTelegramAdapter(config)!;
    const error = await adapter.publish(request(over, { chatId: '-1001' }), noNetwork).catch((e: unknown) => e);
    expect((error as PlatformError).kind).toBe('rejected');
    expect((error as PlatformError).message).toMatch(/limited to 4096/);
  });

  it('Bluesky refuses the same text in validation and in the adapter (300 graphemes, 3,000 bytes)', async () => {
    const bytesOver = 'é'.repeat(1501); // 1,501 graphemes and 3,002 bytes: both rules report
    expect(await textIssues('bluesky', 'a'.repeat(300))).toEqual([]);
    expect((await textIssues('bluesky', 'a'.repeat(301)))[0].message).toMatch(/301 graphemes/);
    expect((await textIssues('bluesky', bytesOver)).map((i) => i.message).join()).toMatch(/3002 bytes/);
  });

  it('no code outside a platform folder, the catalogue and the sandbox names a platform', () => {
    const root = join(__dirname, '../../src');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .filter(
        (f) =>
          !f.startsWith('sandbox/') &&
          f !== 'platforms/catalogue.ts' &&
          !PLATFORMS.some((p) => f.startsWith(`platforms/${p}/`)),
      );
    const named = PLATFORMS.map((p) => `'${p}'`);
    const offenders = files.flatMap((f) => {
      const text = readFileSync(join(root, f), 'utf8');
      return named.filter((n) => text.includes(n)).map((n) => `${f}: ${n}`);
    });
    expect(offenders).toEqual([]);
  });

  it('each adapter implements the capability groups its descriptor declares (editText included), and no others', () => {
    const config = loadConfig({ SANDBOX_URL: 'http://127.0.0.1:9' });
    const withAdapter = CATALOGUE.filter((d) => d.createAdapter);
    expect(withAdapter.map((d) => d.id).sort()).toEqual([
      'bluesky',
      'discord',
      'facebook',
      'googlebusiness',
      'instagram',
      'linkedin',
      'pinterest',
      'reddit',
      'slack',
      'snapchat',
      'telegram',
      'threads',
      'tiktok',
      'twitter',
      'youtube',
    ]);
    for (const d of withAdapter) {
      const adapter = d.createAdapter!(config)!;
      expect(adapter.platform, d.id).toBe(d.id);
      const connect = adapter.oauth ? 'oauth2' : adapter.connect?.kind;
      expect(connect, d.id).toBe(d.capabilities.connect);
      expect(Boolean(adapter.unpublish), d.id).toBe(Boolean(d.capabilities.unpublish));
      expect(Boolean(adapter.findPublished), d.id).toBe(Boolean(d.capabilities.lookup));
      expect(Boolean(adapter.processing), d.id).toBe(Boolean(d.capabilities.processing));
      // POST /v1/posts/{postId}/edit trusts the declaration: a platform that declares editText edits.
      expect(Boolean(adapter.editText), d.id).toBe(Boolean(d.capabilities.editText));
      expect(adapter.destinations?.kind, d.id).toBe(d.capabilities.destinations?.kind);
    }
  });
});
