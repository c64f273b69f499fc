import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORMS } from '../../src/platforms/catalogue.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

let env: TestEnv;
let apiKey: string;
beforeAll(async () => {
  env = await createTestEnv();
  ({ apiKey } = await env.createUser());
});
afterAll(async () => env?.close());

async function lengths(text: string): Promise<Record<string, { count: number; limit: number; valid: boolean }>> {
  const res = await env.request(apiKey, 'POST', '/v1/tools/validate/post-length', { text });
  expect(res.status).toBe(200);
  expect(res.body.text).toBe(text);
  return res.body.platforms;
}

/** Whether the post validation of POST /v1/posts (its dry run) refuses the text's length on `platform`. */
async function creationRefusesLength(platform: string, text: string): Promise<boolean> {
  const res = await env.request(apiKey, 'POST', '/v1/tools/validate/post', {
    content: text,
    platforms: [{ platform }],
  });
  expect(res.status).toBe(200);
  return res.body.errors.some((e: any) => e.rule === 'text_length' && e.field === 'platforms.0.content');
}

const UNITS: Array<[name: string, unit: string]> = [
  ['ASCII', 'a'],
  ['emoji', '😀'],
  ['CJK', '中'],
  ['URLs', 'https://example.com/some/long/path?q=1 '],
];

describe('POST /v1/tools/validate/post-length', () => {
  it('answers every platform of the catalogue with count, limit and valid', async () => {
    const out = await lengths('Check out https://getlate.dev for scheduling posts!');
    expect(Object.keys(out).sort()).toEqual([...PLATFORMS].sort());
    // X weighs a URL as 23 characters (t.co); the others count the text as written.
    expect(out.twitter).toEqual({ count: 10 + 23 + 22, limit: 280, valid: true });
    expect(out.instagram).toEqual({ count: 51, limit: 2200, valid: true });
    expect(out.bluesky).toEqual({ count: 51, limit: 300, valid: true });
  });

  it.each(UNITS)('agrees with post creation at the limit and one over, for %s', async (_name, unit) => {
    const per10 = await lengths(unit.repeat(10));
    // Every counter of the catalogue at once would send texts of 63,206 characters (Facebook) dozens of
    // times; the platforms whose limit is at most 5,000 cover each kind of counter.
    for (const platform of PLATFORMS.filter((p) => per10[p]!.limit <= 5000)) {
      const { limit } = per10[platform]!;
      const cost = per10[platform]!.count / 10;
      const n = Math.floor(limit / Math.max(cost, 1)) - 1;
      const body = unit.repeat(Math.max(n, 0));
      const pad = limit - (await lengths(body))[platform]!.count;
      expect(pad, platform).toBeGreaterThanOrEqual(0);
      const atLimit = body + 'a'.repeat(pad);
      const at = (await lengths(atLimit))[platform]!;
      expect(at, `${platform} at its limit`).toEqual({ count: limit, limit, valid: true });
      expect(await creationRefusesLength(platform, atLimit), `${platform} creation at its limit`).toBe(false);
      const over = (await lengths(atLimit + 'a'))[platform]!;
      expect(over, `${platform} one over`).toEqual({ count: limit + 1, limit, valid: false });
      expect(await creationRefusesLength(platform, atLimit + 'a'), `${platform} creation one over`).toBe(true);
    }
  });

  it('refuses a body without text, or with text that is not a string, with the envelope', async () => {
    for (const body of [{}, { text: 42 }, { text: ['a'] }]) {
      const res = await env.request(apiKey, 'POST', '/v1/tools/validate/post-length', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: expect.any(String),
        code: 'validation_error',
        details: { fields: expect.any(Object) },
      });
    }
  });
});
