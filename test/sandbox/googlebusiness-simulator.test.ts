import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleBusinessSimulator } from '../../src/sandbox/googlebusiness/index.js';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';

/*
 * The Google Business simulator: Google OAuth, v1 accounts and locations held to the discovery documents,
 * v4 local posts, food menus and media, place action links, faults by operation and `_inspect`.
 */

let sandbox: SandboxServer;
let base: string;
let token: string;

async function call(method: string, path: string, body?: unknown, auth = token) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${auth}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function consent(): Promise<string> {
  const q = new URLSearchParams({
    client_id: 'cid',
    redirect_uri: 'http://127.0.0.1:9/cb',
    response_type: 'code',
    scope: 'https://www.googleapis.com/auth/business.manage',
    access_type: 'offline',
    state: 's',
  });
  const res = await fetch(`${base}/o/oauth2/v2/auth?${q}`, { redirect: 'manual' });
  const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
  const tok = (await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:9/cb',
      client_id: 'cid',
      client_secret: 's',
    }),
  }).then((r) => r.json())) as any;
  expect(tok).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String) });
  return tok.access_token;
}

let account: string;
let locations: string[];

beforeAll(async () => {
  sandbox = await startSandbox([googleBusinessSimulator()]);
  base = `${sandbox.url}/sandbox/googlebusiness`;
  token = await consent();
  account = (await call('GET', '/v1/accounts')).body.accounts[0].name;
  locations = (await call('GET', `/v1/${account}/locations?readMask=name,title`)).body.locations.map(
    (l: any) => l.name,
  );
});
afterAll(() => sandbox?.close());

const v4 = (loc: string) => `/v4/${account}/${loc}`;
const post = (extra: Record<string, unknown> = {}) => ({
  topicType: 'STANDARD',
  languageCode: 'en',
  summary: 'Fresh croissants',
  ...extra,
});

describe('Google Business simulator: accounts and locations (v1, discovery documents)', () => {
  it('lists the user one account and two locations, stable for the same login, with the read mask only', async () => {
    expect(account).toMatch(/^accounts\/\d{21}$/);
    expect(locations).toHaveLength(2);
    for (const l of locations) expect(l).toMatch(/^locations\/\d{19}$/);
    const again = await call('GET', `/v1/${account}/locations?readMask=title`);
    expect(Object.keys(again.body.locations[0])).toEqual(['title']);
  });

  it('refuses a locations list without readMask, and a field the Location schema does not define', async () => {
    const noMask = await call('GET', `/v1/${account}/locations`);
    expect(noMask.status).toBe(400);
    expect(noMask.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    const bad = await call('PATCH', `/v1/${locations[1]}?updateMask=title`, { title: 'New', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/Unknown name "colour"/);
  });

  it('patches a location by update mask and reads it back', async () => {
    const res = await call('PATCH', `/v1/${locations[1]}?updateMask=profile.description,websiteUri`, {
      profile: { description: 'Cards and gifts' },
      websiteUri: 'https://gifts.example.com/',
    });
    expect(res.status).toBe(200);
    const read = await call('GET', `/v1/${locations[1]}?readMask=profile,websiteUri`);
    expect(read.body).toEqual({
      profile: { description: 'Cards and gifts' },
      websiteUri: 'https://gifts.example.com/',
    });
  });

  it('sets and deletes attributes by attribute mask', async () => {
    const set = await call('PATCH', `/v1/${locations[0]}/attributes?attributeMask=attributes/has_wifi`, {
      name: `${locations[0]}/attributes`,
      attributes: [{ name: 'attributes/has_wifi', valueType: 'BOOL', values: [true] }],
    });
    expect(set.status).toBe(200);
    expect(set.body.attributes.map((a: any) => a.name)).toContain('attributes/has_wifi');
    const del = await call('PATCH', `/v1/${locations[0]}/attributes?attributeMask=attributes/has_wifi`, {
      attributes: [],
    });
    expect(del.body.attributes.map((a: any) => a.name)).not.toContain('attributes/has_wifi');
  });

  it('answers 401 without a valid token and 403 for another user location', async () => {
    expect((await call('GET', '/v1/accounts', undefined, 'nope')).status).toBe(401);
    expect((await call('GET', '/v1/accounts/123/locations?readMask=name')).status).toBe(403);
  });
});

describe('Google Business simulator: v4 local posts', () => {
  it('creates a post with a BOOK call to action and a photo, lists it, and deletes it (deleted stays in _inspect)', async () => {
    const created = await call(
      'POST',
      `${v4(locations[0])}/localPosts`,
      post({
        callToAction: { actionType: 'BOOK', url: 'https://cafe.example.com/book' },
        media: [{ mediaFormat: 'PHOTO', sourceUrl: 'https://img.example.com/c.jpg' }],
      }),
    );
    expect(created.status).toBe(200);
    expect(created.body.name).toMatch(new RegExp(`^${account}/${locations[0]}/localPosts/\\d+$`));
    expect(created.body.searchUrl).toMatch(/^https:\/\/local\.google\.com\//);
    const listed = await call('GET', `${v4(locations[0])}/localPosts`);
    expect(listed.body.localPosts.map((p: any) => p.name)).toContain(created.body.name);
    const inspected = ((await fetch(`${base}/_inspect`).then((r) => r.json())) as any).posts.find(
      (p: any) => p.id === created.body.name,
    );
    expect(inspected).toMatchObject({
      destination: locations[0],
      text: 'Fresh croissants',
      media: [{ type: 'image', url: 'https://img.example.com/c.jpg' }],
    });
    expect((await call('DELETE', `/v4/${created.body.name}`)).status).toBe(200);
    expect((await call('GET', `/v4/${created.body.name}`)).status).toBe(404);
    const after = ((await fetch(`${base}/_inspect`).then((r) => r.json())) as any).posts.find(
      (p: any) => p.id === created.body.name,
    );
    expect(after.deleted).toBe(true);
  });

  it('refuses a video, two photos, an http photo, a summary over 1500 characters and an unknown action type, recording nothing', async () => {
    const before = ((await fetch(`${base}/_inspect`).then((r) => r.json())) as any).posts.length;
    const bad = [
      post({ media: [{ mediaFormat: 'VIDEO', sourceUrl: 'https://img.example.com/v.mp4' }] }),
      post({
        media: [
          { mediaFormat: 'PHOTO', sourceUrl: 'https://img.example.com/1.jpg' },
          { mediaFormat: 'PHOTO', sourceUrl: 'https://img.example.com/2.jpg' },
        ],
      }),
      post({ media: [{ mediaFormat: 'PHOTO', sourceUrl: 'http://img.example.com/c.jpg' }] }),
      post({ summary: 'x'.repeat(1501) }),
      post({ callToAction: { actionType: 'VISIT', url: 'https://cafe.example.com/' } }),
      post({ callToAction: { actionType: 'CALL', url: 'https://cafe.example.com/' } }),
      { summary: 'no topic' },
    ];
    for (const body of bad) {
      const res = await call('POST', `${v4(locations[0])}/localPosts`, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    }
    expect(((await fetch(`${base}/_inspect`).then((r) => r.json())) as any).posts.length).toBe(before);
  });

  it('patches the fields updateMask names, refusing no mask, an output-only field, an over-long summary and an ended event', async () => {
    const created = (
      await call(
        'POST',
        `${v4(locations[0])}/localPosts`,
        post({ callToAction: { actionType: 'LEARN_MORE', url: 'https://cafe.example.com/' } }),
      )
    ).body;
    const patched = await call('PATCH', `/v4/${created.name}?updateMask=summary`, { summary: 'Warm croissants' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: created.name,
      summary: 'Warm croissants',
      callToAction: created.callToAction,
    });
    const inspected = ((await fetch(`${base}/_inspect`).then((r) => r.json())) as any).posts.find(
      (p: any) => p.id === created.name,
    );
    expect(inspected).toMatchObject({ text: 'Warm croissants', extra: { edited: true } });

    const refusals: [string, unknown, number][] = [
      ['', { summary: 'No mask' }, 400],
      ['?updateMask=topicType', { topicType: 'OFFER' }, 400],
      ['?updateMask=summary', { summary: 'x'.repeat(1501) }, 400],
    ];
    for (const [query, body, status] of refusals) {
      const res = await call('PATCH', `/v4/${created.name}${query}`, body);
      expect([res.status, res.body.error.status], query).toEqual([status, 'INVALID_ARGUMENT']);
    }
    expect((await call('GET', `/v4/${created.name}`)).body.summary).toBe('Warm croissants');

    // An event that ended yesterday is gone for Google: 404, as is a deleted post.
    const event = (
      await call(
        'POST',
        `${v4(locations[0])}/localPosts`,
        post({
          topicType: 'EVENT',
          event: {
            title: 'Tasting',
            schedule: { startDate: { year: 2020, month: 1, day: 1 }, endDate: { year: 2020, month: 1, day: 2 } },
          },
        }),
      )
    ).body;
    expect((await call('PATCH', `/v4/${event.name}?updateMask=summary`, { summary: 'Moved' })).status).toBe(404);
    await call('DELETE', `/v4/${created.name}`);
    expect((await call('PATCH', `/v4/${created.name}?updateMask=summary`, { summary: 'Gone' })).status).toBe(404);
  });

  it('fails the next publish as told by _faults {op: publish}', async () => {
    await fetch(`${base}/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'rate_limited', count: 1 }),
    });
    const res = await call('POST', `${v4(locations[1])}/localPosts`, post());
    expect(res.status).toBe(429);
    expect(res.body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect((await call('POST', `${v4(locations[1])}/localPosts`, post())).status).toBe(200);
  });
});

describe('Google Business simulator: food menus, media, place actions', () => {
  const menus = [
    {
      labels: [{ displayName: 'Breakfast', languageCode: 'en' }],
      sections: [
        {
          labels: [{ displayName: 'Pastries' }],
          items: [
            {
              labels: [{ displayName: 'Croissant' }],
              attributes: { price: { currencyCode: 'USD', units: '3', nanos: 500000000 } },
            },
          ],
        },
      ],
    },
  ];

  it('writes food menus with updateMask=menus and reads them back; refuses them where the location cannot have menus', async () => {
    const put = await call('PATCH', `${v4(locations[0])}/foodMenus?updateMask=menus`, { menus });
    expect(put.status).toBe(200);
    expect((await call('GET', `${v4(locations[0])}/foodMenus`)).body.menus).toEqual(menus);
    expect(
      (await call('PATCH', `${v4(locations[0])}/foodMenus?updateMask=menus`, { menus: [{ labels: [], sections: [] }] }))
        .status,
    ).toBe(400);
    expect((await call('PATCH', `${v4(locations[0])}/foodMenus?updateMask=cuisines`, { menus })).status).toBe(400);
    expect((await call('PATCH', `${v4(locations[1])}/foodMenus?updateMask=menus`, { menus })).status).toBe(400);
  });

  it('adds, lists and deletes a photo', async () => {
    const made = await call('POST', `${v4(locations[0])}/media`, {
      mediaFormat: 'PHOTO',
      locationAssociation: { category: 'EXTERIOR' },
      sourceUrl: 'https://img.example.com/front.jpg',
    });
    expect(made.status).toBe(200);
    expect((await call('GET', `${v4(locations[0])}/media`)).body.mediaItems.map((m: any) => m.name)).toContain(
      made.body.name,
    );
    expect(
      (
        await call('POST', `${v4(locations[0])}/media`, {
          mediaFormat: 'PHOTO',
          sourceUrl: 'https://img.example.com/front.jpg',
        })
      ).status,
    ).toBe(400);
    expect((await call('DELETE', `/v4/${made.body.name}`)).status).toBe(200);
    expect((await call('GET', `${v4(locations[0])}/media`)).body.mediaItems).toEqual([]);
  });

  it('creates a place action link once (the same uri and type again is 409), lists and deletes it', async () => {
    const link = { placeActionType: 'DINING_RESERVATION', uri: 'https://book.example.com/cafe' };
    const made = await call('POST', `/v1/${locations[0]}/placeActionLinks`, link);
    expect(made.status).toBe(200);
    expect((await call('POST', `/v1/${locations[0]}/placeActionLinks`, link)).status).toBe(409);
    expect(
      (
        await call('POST', `/v1/${locations[0]}/placeActionLinks`, {
          placeActionType: 'TAXI',
          uri: 'https://x.example.com',
        })
      ).status,
    ).toBe(400);
    expect((await call('GET', `/v1/${locations[0]}/placeActionLinks`)).body.placeActionLinks).toHaveLength(1);
    expect((await call('DELETE', `/v1/${made.body.name}`)).status).toBe(200);
    expect((await call('GET', `/v1/${locations[0]}/placeActionLinks`)).body).toEqual({});
  });
});
