import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphemeLength } from '../../src/platforms/rules/text.js';
import { threadsLength } from '../../src/platforms/threads/descriptor.js';
import { tweetLength as xWeightedLength } from '../../src/platforms/twitter/count.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant } from '../helpers/posts.js';

let env: TestEnv;
let t: Awaited<ReturnType<typeof createTenant>>;
const acc: Record<string, string> = {};
beforeAll(async () => {
  env = await createTestEnv({ now: '2026-03-01T12:00:00.000Z' });
  t = await createTenant(env);
  for (const p of [
    'twitter',
    'bluesky',
    'threads',
    'googlebusiness',
    'facebook',
    'instagram',
    'linkedin',
    'youtube',
    'tiktok',
    'snapchat',
    'telegram',
  ] as const) {
    acc[p] = await t.account(p);
  }
});
afterAll(async () => env?.close());

const img = (n = 1, ext = 'jpg') =>
  Array.from({ length: n }, (_, i) => ({ type: 'image', url: `https://cdn.example.com/i${i}.${ext}` }));
const vid = (ext = 'mp4') => ({ type: 'video', url: `https://cdn.example.com/v.${ext}` });
const AT = '2026-03-02T10:00:00Z';

describe('text length as each platform counts it', () => {
  it('X weighs URLs 23, CJK and emoji 2', () => {
    expect(xWeightedLength('hello')).toBe(5);
    expect(xWeightedLength('see https://example.com/a/very/long/path?with=query')).toBe(4 + 23);
    expect(xWeightedLength('日本語')).toBe(6);
    expect(xWeightedLength('👍')).toBe(2);
    expect(xWeightedLength('👨‍👩‍👧‍👦')).toBe(2); // one family emoji, seven code points
    expect(xWeightedLength('café')).toBe(4);
  });
  it('Bluesky counts graphemes; Threads counts emoji as UTF-8 bytes', () => {
    expect(graphemeLength('👨‍👩‍👧‍👦é')).toBe(2);
    expect(threadsLength('ab👍')).toBe(2 + 4);
  });
});

describe('platform rules on POST /v1/posts (400 naming target index, platform and rule)', () => {
  const cases: Array<[string, () => Record<string, unknown>, string, RegExp]> = [
    [
      'X text over 280 weighted characters',
      () => ({ content: '日'.repeat(141), platforms: [{ platform: 'twitter', accountId: acc.twitter }] }),
      'platforms.0.content',
      /twitter: text is 282 weighted characters; the limit is 280 \(text_length\)/,
    ],
    [
      'X thread item over the limit',
      () => ({
        content: 'ok',
        platforms: [
          {
            platform: 'twitter',
            accountId: acc.twitter,
            platformSpecificData: { threadItems: [{ content: 'y'.repeat(300) }] },
          },
        ],
      }),
      'platforms.0.platformSpecificData.threadItems.0.content',
      /text_length/,
    ],
    [
      'X with 5 images',
      () => ({ content: 'ok', mediaItems: img(5), platforms: [{ platform: 'twitter', accountId: acc.twitter }] }),
      'platforms.0.mediaItems',
      /media_count/,
    ],
    [
      'Bluesky over 300 graphemes',
      () => ({ content: 'é'.repeat(301), platforms: [{ platform: 'bluesky', accountId: acc.bluesky }] }),
      'platforms.0.content',
      /bluesky: text is 301 graphemes/,
    ],
    [
      'Bluesky image in an unsupported format',
      () => ({
        content: 'ok',
        mediaItems: [{ type: 'image', url: 'https://cdn.example.com/a.heic' }],
        platforms: [{ platform: 'bluesky', accountId: acc.bluesky }],
      }),
      'platforms.0.mediaItems.0',
      /media_format/,
    ],
    [
      'Threads over 500',
      () => ({ content: 'a'.repeat(497) + '👍', platforms: [{ platform: 'threads', accountId: acc.threads }] }),
      'platforms.0.content',
      /threads: text is 501 characters/,
    ],
    [
      'Google Business over 1500',
      () => ({ content: 'g'.repeat(1501), platforms: [{ platform: 'googlebusiness', accountId: acc.googlebusiness }] }),
      'platforms.0.content',
      /limit is 1500/,
    ],
    [
      'Google Business video',
      () => ({
        content: 'ok',
        mediaItems: [vid()],
        platforms: [{ platform: 'googlebusiness', accountId: acc.googlebusiness }],
      }),
      'platforms.0.mediaItems',
      /videos are not supported \(media_type\)/,
    ],
    [
      'Google Business CTA type',
      () => ({
        content: 'ok',
        platforms: [
          {
            platform: 'googlebusiness',
            accountId: acc.googlebusiness,
            platformSpecificData: { callToAction: { type: 'BUY_NOW', url: 'https://x.example' } },
          },
        ],
      }),
      'platforms.0.platformSpecificData.callToAction',
      /type must be one of: LEARN_MORE, BOOK, ORDER, SHOP, SIGN_UP, CALL/,
    ],
    [
      'Google Business CTA without url',
      () => ({
        content: 'ok',
        platforms: [
          {
            platform: 'googlebusiness',
            accountId: acc.googlebusiness,
            platformSpecificData: { callToAction: { type: 'BOOK' } },
          },
        ],
      }),
      'platforms.0.platformSpecificData.callToAction',
      /url is required/,
    ],
    [
      'Facebook images mixed with a video',
      () => ({
        content: 'ok',
        mediaItems: [...img(2), vid()],
        platforms: [{ platform: 'facebook', accountId: acc.facebook }],
      }),
      'platforms.0.mediaItems',
      /cannot mix images and videos \(media_mix\)/,
    ],
    [
      'Facebook story first comment',
      () => ({
        content: 'ok',
        mediaItems: img(1),
        platforms: [
          {
            platform: 'facebook',
            accountId: acc.facebook,
            platformSpecificData: { contentType: 'story', firstComment: 'hi' },
          },
        ],
      }),
      'platforms.0.platformSpecificData.firstComment',
      /story_first_comment/,
    ],
    [
      'Instagram without media',
      () => ({ content: 'ok', platforms: [{ platform: 'instagram', accountId: acc.instagram }] }),
      'platforms.0.mediaItems',
      /instagram: Instagram needs at least one image or video \(media_required\)/,
    ],
    [
      'Instagram trialParams strategy',
      () => ({
        content: 'ok',
        mediaItems: [vid()],
        platforms: [
          {
            platform: 'instagram',
            accountId: acc.instagram,
            platformSpecificData: { trialParams: { graduationStrategy: 'SOMETIMES' } },
          },
        ],
      }),
      'platforms.0.platformSpecificData.trialParams',
      /field_shape/,
    ],
    [
      'Instagram 4 collaborators',
      () => ({
        content: 'ok',
        mediaItems: img(1),
        platforms: [
          {
            platform: 'instagram',
            accountId: acc.instagram,
            platformSpecificData: { collaborators: ['a', 'b', 'c', 'd'] },
          },
        ],
      }),
      'platforms.0.platformSpecificData.collaborators',
      /at most 3 items/,
    ],
    [
      'unknown platformSpecificData field',
      () => ({
        content: 'ok',
        platforms: [{ platform: 'linkedin', accountId: acc.linkedin, platformSpecificData: { pageId: '1' } }],
      }),
      'platforms.0.platformSpecificData.pageId',
      /unknown field pageId \(unknown_field\)/,
    ],
    [
      'YouTube without a video',
      () => ({ content: 'ok', mediaItems: img(1), platforms: [{ platform: 'youtube', accountId: acc.youtube }] }),
      'platforms.0.mediaItems',
      /media_required/,
    ],
    [
      'YouTube title over 100',
      () => ({
        content: 'ok',
        mediaItems: [vid()],
        platforms: [{ platform: 'youtube', accountId: acc.youtube, platformSpecificData: { title: 't'.repeat(101) } }],
      }),
      'platforms.0.platformSpecificData.title',
      /at most 100/,
    ],
    [
      'Snapchat with two media',
      () => ({ content: 'ok', mediaItems: img(2), platforms: [{ platform: 'snapchat', accountId: acc.snapchat }] }),
      'platforms.0.mediaItems',
      /media_required/,
    ],
    [
      'Telegram text over 4096 with media',
      () => ({
        content: 'c'.repeat(4097),
        mediaItems: img(1),
        platforms: [{ platform: 'telegram', accountId: acc.telegram }],
      }),
      'platforms.0.content',
      /limit is 4096/,
    ],
    [
      'a target with neither text nor media',
      () => ({ content: '   ', platforms: [{ platform: 'twitter', accountId: acc.twitter }] }),
      'platforms.0.content',
      /content_required/,
    ],
    [
      'a media URL that is not http(s)',
      () => ({
        content: 'ok',
        mediaItems: [{ type: 'image', url: 'ftp://x/a.jpg' }],
        platforms: [{ platform: 'twitter', accountId: acc.twitter }],
      }),
      'platforms.0.mediaItems.0.url',
      /media_url/,
    ],
    [
      'the second target breaks its rule',
      () => ({
        content: 'ok',
        platforms: [
          { platform: 'twitter', accountId: acc.twitter },
          { platform: 'tiktok', accountId: acc.tiktok },
        ],
      }),
      'platforms.1.mediaItems',
      /tiktok: .*media_required/,
    ],
  ];
  for (const [name, body, field, message] of cases) {
    it(`rejects ${name}`, async () => {
      const res = await env.request(t.apiKey, 'POST', '/v1/posts', { scheduledFor: AT, ...body() });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(Object.keys(res.body.details.fields)).toContain(field);
      expect(res.body.details.fields[field].join(' | ')).toMatch(message);
      expect(res.body.details.errors[0]).toMatchObject({
        index: expect.any(Number),
        platform: expect.any(String),
        rule: expect.any(String),
      });
    });
  }

  it('accepts a post that keeps every rule, and echoes platformSpecificData back', async () => {
    const psd = {
      callToAction: { type: 'LEARN_MORE', url: 'https://shop.example/x' },
      locationId: 'locations/123',
      languageCode: 'en-US',
    };
    const res = await env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'Fine',
      scheduledFor: AT,
      mediaItems: img(1, 'png'),
      platforms: [{ platform: 'googlebusiness', accountId: acc.googlebusiness, platformSpecificData: psd }],
    });
    expect(res.status).toBe(201);
    expect(res.body.post.platforms[0].platformSpecificData).toEqual(psd);
  });

  it('does not validate drafts until they are scheduled', async () => {
    const res = await env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'later',
      isDraft: true,
      platforms: [{ platform: 'instagram', accountId: acc.instagram }],
    });
    expect(res.status).toBe(201);
    const scheduled = await env.request(t.apiKey, 'PUT', `/v1/posts/${res.body.post._id}`, { scheduledFor: AT });
    expect(scheduled.status).toBe(400);
    expect(scheduled.body.details.fields['platforms.0.mediaItems'][0]).toMatch(/media_required/);
  });
});

describe('bad inputs are all 4xx in the error envelope', () => {
  const bad: Array<[string, string, string, unknown, number, string]> = [
    [
      'no platforms for a scheduled post',
      'POST',
      '/v1/posts',
      { content: 'x', scheduledFor: AT },
      400,
      'validation_error',
    ],
    [
      'an unknown platform',
      'POST',
      '/v1/posts',
      { content: 'x', platforms: [{ platform: 'myspace', accountId: 'a' }] },
      400,
      'validation_error',
    ],
    [
      'a target without accountId',
      'POST',
      '/v1/posts',
      { content: 'x', platforms: [{ platform: 'twitter' }] },
      400,
      'validation_error',
    ],
    ['content that is not a string', 'POST', '/v1/posts', { content: 5, isDraft: true }, 400, 'validation_error'],
    [
      'a malformed scheduledFor',
      'POST',
      '/v1/posts',
      { content: 'x', scheduledFor: 'next tuesday', platforms: [] },
      400,
      'invalid_date',
    ],
    [
      'an impossible date',
      'POST',
      '/v1/posts',
      { content: 'x', scheduledFor: '2026-02-30T10:00:00' },
      400,
      'invalid_date',
    ],
    [
      'an unknown time zone',
      'POST',
      '/v1/posts',
      { content: 'x', scheduledFor: '2026-03-02T10:00:00', timezone: 'Mars/Olympus' },
      400,
      'invalid_timezone',
    ],
    [
      'an unknown time zone on a draft',
      'POST',
      '/v1/posts',
      { content: 'x', timezone: 'Nowhere' },
      400,
      'invalid_timezone',
    ],
    [
      'an account id that does not exist',
      'POST',
      '/v1/posts',
      { content: 'x', scheduledFor: AT, platforms: [{ platform: 'twitter', accountId: '000000000000000000000000' }] },
      400,
      'account_not_found',
    ],
    [
      'a media type outside the enum',
      'POST',
      '/v1/posts',
      { content: 'x', mediaItems: [{ type: 'audio', url: 'https://a/b.mp3' }], isDraft: true },
      400,
      'validation_error',
    ],
    ['a body that is not JSON', 'POST', '/v1/posts', '{"content":', 400, 'invalid_json'],
    ['limit above 100', 'GET', '/v1/posts?limit=101', undefined, 400, 'validation_error'],
    ['page 0', 'GET', '/v1/posts?page=0', undefined, 400, 'validation_error'],
    ['an unknown status filter', 'GET', '/v1/posts?status=lost', undefined, 400, 'validation_error'],
    ['an unknown sortBy', 'GET', '/v1/posts?sortBy=random', undefined, 400, 'validation_error'],
    ['a malformed dateFrom', 'GET', '/v1/posts?dateFrom=yesterday', undefined, 400, 'invalid_date'],
    ['a post id that does not exist', 'GET', '/v1/posts/000000000000000000000000', undefined, 404, 'post_not_found'],
    ['a malformed post id', 'DELETE', '/v1/posts/not-an-id', undefined, 404, 'post_not_found'],
    ['unpublish without platform', 'POST', '/v1/posts/000000000000000000000000/unpublish', {}, 400, 'validation_error'],
    ['validate/post without platforms', 'POST', '/v1/tools/validate/post', { content: 'x' }, 400, 'validation_error'],
    [
      'an Idempotency-Key that is too long',
      'POST',
      '/v1/tools/validate/post',
      { platforms: [{ platform: 'twitter' }] },
      400,
      'invalid_idempotency_key',
    ],
  ];
  for (const [name, method, url, body, status, code] of bad) {
    it(`${method} ${url.split('?')[0]}: ${name} -> ${status} ${code}`, async () => {
      const headers: Record<string, string> = typeof body === 'string' ? { 'content-type': 'application/json' } : {};
      if (code === 'invalid_idempotency_key') headers['idempotency-key'] = 'k'.repeat(256);
      const res = await env.request(t.apiKey, method, url, body, headers);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ error: expect.any(String), code });
      if (status === 400 && code === 'validation_error') expect(res.body.details.fields).toBeTypeOf('object');
    });
  }
});

describe('POST /v1/tools/validate/post (dry run)', () => {
  it('reports the same rule failures without storing anything, and valid content as valid', async () => {
    const sdk = t.sdk;
    const bad = await sdk.validate.validatePost({
      body: {
        content: 'x'.repeat(290),
        mediaItems: [...img(1), vid()] as any,
        platforms: [{ platform: 'twitter' }, { platform: 'facebook' }, { platform: 'instagram' }],
      },
    });
    const body = bad.data as any;
    expect(body.valid).toBe(false);
    expect(body.errors.map((e: any) => `${e.platform}:${e.rule}`)).toEqual([
      'twitter:text_length',
      'twitter:media_mix',
      'facebook:media_mix',
    ]);
    expect(body.errors[0]).toMatchObject({
      index: 0,
      field: 'platforms.0.content',
      error: 'text is 290 weighted characters; the limit is 280',
    });
    const good = (await sdk.validate.validatePost({ body: { content: 'short', platforms: [{ platform: 'bluesky' }] } }))
      .data as any;
    expect(good).toEqual({ valid: true, message: 'No validation issues found.', errors: [], warnings: [] });
    const count = await env.ctx.db.kysely
      .selectFrom('post')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('content', '=', 'short')
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });
});
