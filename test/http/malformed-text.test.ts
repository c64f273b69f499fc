import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { countRows } from '../helpers/row-counts.js';

/*
 * A NUL character or an unpaired surrogate is refused with a 400 wherever a request carries text: in a
 * body, a query or a path. PostgreSQL text cannot hold a NUL (it was a 500 there, and stored as-is on
 * SQLite); an unpaired surrogate cannot be written as UTF-8 and was stored as a replacement character.
 */

let env: TestEnv;
let apiKey: string;
beforeAll(async () => {
  env = await createTestEnv();
  ({ apiKey } = await env.createUser());
});
afterAll(async () => env?.close());

describe('text that is not text', () => {
  it('refuses a NUL or an unpaired surrogate in a body field, an array item or a key, and stores nothing', async () => {
    const before = await countRows(env.ctx);
    const cases: [unknown, string][] = [
      [{ name: 'a\u0000b' }, 'name'],
      [{ name: 'broken \ud800 half' }, 'name'],
      [{ name: 'ok', description: 'tail \udc00' }, 'description'],
    ];
    for (const [body, field] of cases) {
      const res = await env.request(apiKey, 'POST', '/v1/profiles', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'validation_error',
        details: { fields: { [field]: [expect.stringContaining('NUL')] } },
      });
    }
    const post = await env.request(apiKey, 'POST', '/v1/posts', {
      content: 'hello',
      tags: ['fine', 'x\u0000'],
      metadata: { ['k\u0000']: 1 },
    });
    expect(post.status).toBe(400);
    expect(Object.keys(post.body.details.fields)).toEqual(['metadata.k\u0000']);
    expect(await countRows(env.ctx)).toEqual(before);
  });

  it('accepts a surrogate pair (an emoji) and right-to-left text', async () => {
    const res = await env.request(apiKey, 'POST', '/v1/profiles', { name: 'Café 🎉 \u202eabc' });
    expect(res.status).toBe(201);
    expect(res.body.profile.name).toBe('Café 🎉 \u202eabc');
  });

  it('refuses a NUL in a path id or a query value with a 400', async () => {
    const path = await env.request(apiKey, 'GET', '/v1/posts/a%00b');
    expect(path.status).toBe(400);
    expect(path.body.details.fields).toHaveProperty('postId');
    const query = await env.request(apiKey, 'GET', '/v1/posts?search=a%00b');
    expect(query.status).toBe(400);
    expect(query.body.details.fields).toHaveProperty('search');
  });
});
