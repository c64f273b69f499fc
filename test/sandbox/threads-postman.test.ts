import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import newman from 'newman';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import { threadsSimulator } from '../../src/sandbox/threads/index.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * The Threads simulator against Meta's official Postman collection for the Threads API
 * (fbsamples/threads_api), run by newman, the collection runner nobody here wrote, through its Node API.
 * Every request is sent as the collection writes it, in its order, its own scripts chaining the ids
 * (`auto_save_variables`). The collection's scripts assert nothing, so a test script is added to every
 * request: the status, and the shape of the answer (the keys a Threads answer has, nothing else; for a
 * request the simulator does not serve, Graph's error shape).
 *
 * What the run needs besides the collection, and why:
 * - the collection's auth is OAuth 2 in a browser: the code comes from the simulator's authorize page,
 *   the collection's own "Exchange the Code For a Token" trades it, and its answer is the Bearer token of
 *   "Get Long-Lived Access Token"; the long-lived one is then every request's Bearer token;
 * - `reply_control` in the collection is the list of its five values (a placeholder): one value is sent;
 * - `quote_post_id` and `reply_thread_id` are never saved by the collection's scripts: they are set to
 *   the thread just published;
 * - the refresh needs a long-lived token at least a day old: the simulator's clock moves two days on.
 */

let sandbox: SandboxServer;
let media: http.Server;
let mediaBase = '';
let offset = 0;

beforeAll(async () => {
  sandbox = await startSandbox([threadsSimulator({ now: () => new Date(Date.now() + offset) })]);
  await sandboxCall(sandbox, 'POST', '/sandbox/threads/_config', { processingMs: 0 });
  media = http.createServer((req, res) => {
    const types: Record<string, string> = { '/image.jpg': 'image/jpeg', '/video.mp4': 'video/mp4' };
    const type = types[req.url ?? ''];
    if (!type) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': type }).end(Buffer.alloc(4096, 1));
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => media.close(() => r()));
  await sandbox?.close();
});

/** Requests the simulator serves, and the shape of each answer (a pm test script). */
const ID = 'pm.expect(b.id).to.match(/^\\d+$/);';
const ONLY = (keys: string[]) => `pm.expect(Object.keys(b)).to.have.members(${JSON.stringify(keys)});`;
const SUBSET = (list: string) =>
  `pm.expect(${list}.split(',').map(function (f) { return f.split('{')[0]; }).concat(['id'])).to.include.members(Object.keys(b));`;
const LIST = (list: string) =>
  `pm.expect(b.data).to.be.an('array'); b.data.forEach(function (x) { pm.expect(${list}.split(',').map(function (f) { return f.split('{')[0]; }).concat(['id'])).to.include.members(Object.keys(x)); pm.expect(x.id).to.match(/^\\d+$/); });`;
const SERVED: Record<string, string> = {
  'Exchange the Code For a Token': `${ONLY(['access_token', 'user_id'])} pm.collectionVariables.set('short_token', b.access_token);`,
  'Get Long-Lived Access Token': `${ONLY(['access_token', 'token_type', 'expires_in'])} pm.expect(b.expires_in).to.equal(5184000); pm.collectionVariables.set('long_token', b.access_token);`,
  'Refresh Access Token': `${ONLY(['access_token', 'token_type', 'expires_in'])} pm.collectionVariables.set('long_token', b.access_token);`,
  'Get App Access Token': ONLY(['access_token', 'token_type']),
  '1.1 Create Text Container': `${ONLY(['id'])} ${ID}`,
  '1.2 Create Image Container': `${ONLY(['id'])} ${ID}`,
  '1.3 Create Video Container': `${ONLY(['id'])} ${ID}`,
  '2. Publish Threads Post': `${ONLY(['id'])} ${ID} pm.collectionVariables.set('quote_post_id', b.id); pm.collectionVariables.set('reply_thread_id', b.id);`,
  '1.1 Create an Image Item Container': `${ONLY(['id'])} ${ID}`,
  '1.2 Create a Video Item Container': `${ONLY(['id'])} ${ID}`,
  '2. Create a Carousel Container': `${ONLY(['id'])} ${ID}`,
  '3. Publish a Carousel Container': `${ONLY(['id'])} ${ID}`,
  '1. Create Media Container': `${ONLY(['id'])} ${ID}`,
  '2. Publish Threads Quote Post': `${ONLY(['id'])} ${ID} pm.collectionVariables.set('reply_thread_id', b.id);`,
  "Get App-Scoped User's Profile Information": `${SUBSET("pm.collectionVariables.get('fields_profile')")} ${ID} pm.expect(b.username).to.be.a('string');`,
  'Get Threads Post Details': `${SUBSET("pm.collectionVariables.get('fields_threads')")} ${ID} pm.expect(b.media_product_type).to.equal('THREADS'); pm.expect(b.permalink).to.match(/^https:\\/\\/www\\.threads\\.net\\/@/);`,
  "Get a List of All a User's Threads": `${LIST("pm.collectionVariables.get('fields_threads')")} pm.expect(b.data.length).to.be.above(0);`,
  'Get Threads Replies': `${LIST("pm.collectionVariables.get('fields_replies')")}`,
  'Get Threads Conversations': LIST("pm.collectionVariables.get('fields_replies')"),
  'Respond to Replies': `${ONLY(['id'])} ${ID}`,
  'Control Who Can Reply': `${ONLY(['id'])} ${ID}`,
  'Delete Threads Post': `pm.expect(b).to.eql({ success: true, deleted_id: pm.collectionVariables.get('thread_id') });`,
  "Check Container's Publishing Status": `${ONLY(['id', 'status'])} pm.expect(['IN_PROGRESS', 'FINISHED', 'PUBLISHED', 'ERROR', 'EXPIRED']).to.include(b.status);`,
  'Retrieve Publishing Quota Limit': `${ONLY(['data'])} var q = b.data[0]; pm.expect(pm.collectionVariables.get('fields_quota').split(',')).to.include.members(Object.keys(q)); pm.expect(q.quota_usage).to.be.a('number'); pm.expect(q.config.quota_total).to.equal(250);`,
};

/** What the simulator does not serve (nothing Herald uses): Graph's own refusal, never a 404 page or a 500. */
const UNSERVED = [
  'Repost Threads Post',
  'Search for Locations',
  'Retrieve Threads Location',
  "Get Public Threads User's Profile Information",
  "Retrieve a List of a Public Profile's Threads",
  'Hide Replies',
  "Get a List of All a User's Replies",
  // Served (sandbox/threads/insights.ts; test/analytics/meta-analytics.test.ts), but the collection asks
  // them of the thread it deleted before, and follower_demographics without the breakdown it needs.
  'Get Post Insights',
  'Get Account Insights',
  'Search for Threads Posts',
  'Get Mentioned Threads Posts',
  'Embed a Threads Post',
  'Debug Access Token',
];

function assertions(name: string): string[] {
  const served = SERVED[name];
  const lines = served
    ? [
        "pm.test('status 200', function () { pm.response.to.have.status(200); });",
        `pm.test('answer shape', function () { var b = pm.response.json(); ${served} });`,
      ]
    : [
        "pm.test('status 400', function () { pm.response.to.have.status(400); });",
        "pm.test(\"Graph's error shape\", function () { var b = pm.response.json(); pm.expect(Object.keys(b)).to.eql(['error']); pm.expect(b.error.message).to.be.a('string'); pm.expect(b.error.type).to.be.a('string'); pm.expect(b.error.code).to.be.a('number'); pm.expect(b.error.fbtrace_id).to.be.a('string'); });",
      ];
  return lines;
}

interface Execution {
  name: string;
  status: number | null;
  failed: string[];
  body: string;
}

describe("Meta's Postman collection for the Threads API, run by newman", () => {
  it('every request answers with the status and shape added to it; what the simulator serves is published once', async () => {
    const collection = JSON.parse(
      readFileSync(new URL('../fixtures/threads/threads-api.postman_collection.json', import.meta.url), 'utf8'),
    );
    const base = `${sandbox.url}/sandbox/threads`;
    const redirect = 'https://www.domain.com/login';
    const consent = await fetch(
      `${base}/oauth/authorize?${new URLSearchParams({ client_id: 'pm-app', redirect_uri: redirect, scope: 'threads_basic,threads_content_publish,threads_read_replies,threads_manage_replies', response_type: 'code', login_hint: 'newman' })}`,
      { redirect: 'manual' },
    );
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;

    const set: Record<string, string> = {
      api_host: base,
      authorization_host: base,
      app_id: 'pm-app',
      app_secret: 'pm-secret',
      code,
      image_url: `${mediaBase}/image.jpg`,
      video_url: `${mediaBase}/video.mp4`,
      auto_save_variables: 'true',
      reply_control: 'mentioned_only',
    };
    for (const v of collection.variable) if (v.key in set) v.value = set[v.key];
    collection.auth = { type: 'bearer', bearer: [{ key: 'token', value: '{{long_token}}', type: 'string' }] };

    const names: string[] = [];
    const walk = (items: any[]) =>
      items.forEach((it) => {
        if (it.item) return walk(it.item);
        names.push(it.name);
        if (it.name === 'Get Long-Lived Access Token')
          it.request.auth = { type: 'bearer', bearer: [{ key: 'token', value: '{{short_token}}', type: 'string' }] };
        it.event = [
          ...(it.event ?? []),
          { listen: 'test', script: { type: 'text/javascript', exec: assertions(it.name) } },
        ];
      });
    walk(collection.item);
    // Every request of the collection is either served or listed as not served.
    expect([...names].sort()).toEqual([...Object.keys(SERVED), ...UNSERVED].sort());

    const executions: Execution[] = [];
    const summary = await new Promise<any>((resolve, reject) => {
      const run = newman.run({ collection, reporters: [], timeout: 30_000 }, (error, s) =>
        error ? reject(error) : resolve(s),
      );
      // A long-lived token refreshes once it is a day old.
      run.on('beforeItem', (_e: unknown, args: { item: { name: string } }) => {
        if (args.item.name === 'Refresh Access Token') offset += 2 * 86_400_000;
      });
    });
    for (const e of summary.run.executions) {
      executions.push({
        name: e.item.name,
        status: e.response?.code ?? null,
        failed: (e.assertions ?? []).filter((a: any) => a.error).map((a: any) => `${a.assertion}: ${a.error.message}`),
        body: e.response ? e.response.stream.toString('utf8').slice(0, 300) : '',
      });
    }
    expect(executions.map((x) => x.name)).toEqual(names);
    expect(executions.filter((x) => x.failed.length)).toEqual([]);
    expect(Object.fromEntries(executions.map((x) => [x.name, x.status]))).toEqual(
      Object.fromEntries(names.map((n) => [n, n in SERVED ? 200 : 400])),
    );
    expect(summary.run.failures).toEqual([]);
    // Each assertion ran: two per request.
    expect(summary.run.stats.assertions).toMatchObject({ total: names.length * 2, failed: 0 });

    // What the collection published: its publish requests send the last container made, so the video
    // (after text, image and video containers), the carousel and the quote; its reply and reply-control
    // requests make containers it never publishes. The thread deleted at the end is marked so.
    const posts = (await sandboxCall(sandbox, 'GET', '/sandbox/threads/_inspect')).posts as any[];
    expect(posts.map((p) => [p.extra.mediaType, p.text])).toEqual([
      ['VIDEO', 'This is a video.'],
      ['CAROUSEL', 'This is a carousel.'],
      ['TEXT', 'This is a quoted post.'],
    ]);
    expect(posts[1].media.map((m: any) => m.type)).toEqual(['image', 'video']);
    expect(posts.filter((p) => p.deleted).map((p) => p.extra.mediaType)).toEqual(['TEXT']);
  });
});
