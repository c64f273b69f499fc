import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createLinkedInAdapter,
  type LinkedInAdapter,
  type LinkedInOptions,
} from '../../../src/platforms/linkedin/index.js';
import { LINKEDIN_DEFAULT_SCOPES } from '../../../src/platforms/linkedin/oauth.js';
import { parseLinkedInUrl } from '../../../src/platforms/linkedin/organizations.js';
import { fromLittleText, toLittleText } from '../../../src/platforms/linkedin/text.js';
import {
  isProcessingStarted,
  PlatformError,
  type AccountCredentials,
  type PlatformAdapter,
  type ProcessingStarted,
  type PublishResult,
} from '../../../src/platforms/types.js';
import {
  addLinkedInOrganization,
  linkedInSimulator,
  SANDBOX_ORGANIZATION,
  SANDBOX_PERSON,
} from '../../../src/sandbox/linkedin/index.js';
import { liStore } from '../../../src/sandbox/linkedin/store.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import {
  closedPortUrl,
  connectVia,
  pngBytes,
  publishRequest,
  testIO,
  postingAdapter,
} from '../../helpers/platform-io.js';

const IMAGE = 'https://media.test/photo.png';
const IMAGE2 = 'https://media.test/photo2.png';
const PDF = 'https://media.test/deck.pdf';
const VIDEO = 'https://media.test/clip.mp4';
const files = {
  [IMAGE]: { bytes: pngBytes(4000), contentType: 'image/png' },
  [IMAGE2]: { bytes: pngBytes(5000), contentType: 'image/png' },
  [PDF]: { bytes: Buffer.from('%PDF-1.4 test document'), contentType: 'application/pdf' },
  // Two 4 MiB parts and a remainder.
  [VIDEO]: { bytes: pngBytes(9 * 1024 * 1024), contentType: 'video/mp4' },
};

// A version the simulator serves whatever today's date (the default one is sunset a year after release).
const now = new Date();
const CURRENT_VERSION = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;

let sandbox: SandboxServer;
let adapter: PlatformAdapter<PublishResult>;
/** The adapter as the engine sees it (may answer media still processing). */
let raw: LinkedInAdapter;
let opts: LinkedInOptions;

async function caught(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => null,
    (e) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

async function fault(kind: string, count = 1, after = 0, op = 'publish') {
  await fetch(`${sandbox.url}/sandbox/linkedin/_faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind, count, after, op }),
  });
}

beforeAll(async () => {
  sandbox = await startSandbox([linkedInSimulator()]);
  const base = `${sandbox.url}/sandbox/linkedin`;
  opts = {
    apiUrl: base,
    authUrl: base,
    clientId: 'li-client',
    clientSecret: 'li-secret',
    version: CURRENT_VERSION,
    scopes: LINKEDIN_DEFAULT_SCOPES,
  };
  raw = createLinkedInAdapter(opts);
  adapter = postingAdapter(raw);
});

afterAll(async () => {
  await sandbox.close();
});

beforeEach(async () => {
  await fetch(`${sandbox.url}/sandbox/linkedin/_reset`, { method: 'POST' });
});

afterEach(() => {
  vi.useRealTimers();
});

async function connect(): Promise<AccountCredentials> {
  return (await connectVia(adapter.oauth!, testIO().io)).account;
}

function inspect() {
  return sandbox.state('linkedin').posts;
}

describe('LinkedIn adapter against the LinkedIn simulator', () => {
  it('connects: consent redirects back with a code, exchanged for 60-day tokens, then the OpenID profile', async () => {
    const { io, calls } = testIO();
    const { account, tokens, profile, authUrl } = await connectVia(adapter.oauth!, io);
    const url = new URL(authUrl);
    expect(url.pathname).toBe('/sandbox/linkedin/oauth/v2/authorization');
    expect(url.searchParams.get('scope')).toBe(LINKEDIN_DEFAULT_SCOPES.join(' '));
    expect(tokens.expiresAt!.getTime() - Date.now()).toBeGreaterThan(59 * 86_400_000);
    expect(tokens.refreshToken).toBeTruthy();
    expect(profile).toMatchObject({ platformUserId: 'linkedin-user-1', displayName: 'Sandbox linkedin user' });
    expect(profile.metadata).toMatchObject({ personUrn: 'urn:li:person:linkedin-user-1' });
    expect(account.accessToken).toBe(tokens.accessToken);
    expect(calls.map((c) => new URL(c.endpoint).pathname)).toEqual([
      '/sandbox/linkedin/oauth/v2/accessToken',
      '/sandbox/linkedin/v2/userinfo',
    ]);
  });

  it('publishes text: author, escaped commentary, required headers; the id comes from x-restli-id', async () => {
    const account = await connect();
    const { io, calls } = testIO();
    const text = 'Launch day (finally) #herald @team_*';
    const result = await adapter.publish(publishRequest(account, { content: text }), io);
    expect(result.platformPostId).toMatch(/^urn:li:share:\d+$/);
    expect(result.platformPostUrl).toBe(`https://www.linkedin.com/feed/update/${result.platformPostId}`);
    const posts = inspect();
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      id: result.platformPostId,
      text,
      author: 'urn:li:person:linkedin-user-1',
      media: [],
    });
    expect(posts[0].extra).toMatchObject({
      commentary: 'Launch day \\(finally\\) \\#herald \\@team\\_\\*',
      visibility: 'PUBLIC',
      lifecycleState: 'PUBLISHED',
    });
    expect(calls.map((c) => `${c.method} ${new URL(c.endpoint).pathname}`)).toEqual([
      'POST /sandbox/linkedin/rest/posts',
    ]);
  });

  it('publishes an image through initializeUpload and a PUT of the bytes', async () => {
    const account = await connect();
    const { io, calls } = testIO(files);
    const result = await adapter.publish(
      publishRequest(account, { media: [{ type: 'image', url: IMAGE, altText: 'the team' }] }),
      io,
    );
    const [post] = inspect();
    expect(post.id).toBe(result.platformPostId);
    expect(post.media).toEqual([
      {
        type: 'image',
        url: expect.stringMatching(/^urn:li:image:/),
        mimeType: 'image/png',
        size: 4000,
        altText: 'the team',
      },
    ]);
    expect(calls.map((c) => `${c.method} ${new URL(c.endpoint).pathname.replace('/sandbox/linkedin', '')}`)).toEqual([
      'POST /rest/images',
      expect.stringMatching(/^PUT \/dms-uploads\//),
      'POST /rest/posts',
    ]);
  });

  it('publishes several images as multiImage, a PDF as a titled document, a video in parts', async () => {
    const account = await connect();
    const { io } = testIO(files);
    await adapter.publish(
      publishRequest(account, {
        media: [
          { type: 'image', url: IMAGE },
          { type: 'image', url: IMAGE2 },
        ],
      }),
      io,
    );
    await adapter.publish(
      publishRequest(account, {
        media: [{ type: 'document', url: PDF }],
        platformSpecificData: { documentTitle: 'Q3 deck' },
      }),
      io,
    );
    // Processed at once: the video is AVAILABLE when the adapter first asks, so it posts in the same call.
    sandbox.state('linkedin').config.processingMs = 0;
    await adapter.publish(publishRequest(account, { media: [{ type: 'video', url: VIDEO }] }), io);
    const posts = inspect();
    expect(posts.map((p) => p.media.map((m) => `${m.type}:${m.size}`))).toEqual([
      ['image:4000', 'image:5000'],
      [`document:${files[PDF].bytes.length}`],
      [`video:${files[VIDEO].bytes.length}`],
    ]);
    expect(posts[1].extra).toMatchObject({ title: 'Q3 deck' });
  });

  it('answers a video LinkedIn is still processing with its URN, then posts it once the status is AVAILABLE', async () => {
    const account = await connect();
    const { io, calls } = testIO(files);
    const state = sandbox.state('linkedin');
    state.config.processingMs = 60_000;
    const req = publishRequest(account, { media: [{ type: 'video', url: VIDEO }] });
    const outcome = await raw.publish(req, io);
    expect(isProcessingStarted(outcome)).toBe(true);
    const { handle, waitMs } = (outcome as ProcessingStarted).processing;
    expect(handle.video).toMatch(/^urn:li:video:/);
    expect(waitMs).toBeGreaterThan(0);
    expect(await raw.processing!.check(handle, req, io)).toMatchObject({ state: 'processing' });
    expect(inspect()).toHaveLength(0);
    // The platform finishes: the same video, never uploaded again, goes out.
    liStore(state).assets.get(String(handle.video))!.processing!.readyAt = 0;
    expect(await raw.processing!.check(handle, req, io)).toEqual({ state: 'ready' });
    const uploads = calls.filter((c) => c.endpoint.includes('action=initializeUpload')).length;
    const result = await raw.processing!.finish(handle, req, io);
    expect(calls.filter((c) => c.endpoint.includes('action=initializeUpload')).length).toBe(uploads);
    expect(inspect().map((p) => p.id)).toEqual([result.platformPostId]);
  });

  it('fails a video LinkedIn could not process with its reason (processing fault)', async () => {
    const account = await connect();
    const { io } = testIO(files);
    sandbox.state('linkedin').config.processingMs = 0;
    await fetch(`${sandbox.url}/sandbox/linkedin/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'processing', kind: 'rejected', count: 1 }),
    });
    const error = await caught(raw.publish(publishRequest(account, { media: [{ type: 'video', url: VIDEO }] }), io));
    expect(error).toMatchObject({ kind: 'rejected', platformCode: 'PROCESSING_FAILED' });
    expect(error.message).toContain('The video could not be transcoded');
  });

  it('posts as the selected organization, and the first comment goes under the post', async () => {
    const account = await connect();
    account.metadata = {
      ...account.metadata,
      accountType: 'organization',
      organizationUrn: `urn:li:organization:${SANDBOX_ORGANIZATION.id}`,
    };
    const { io } = testIO();
    const result = await adapter.publish(
      publishRequest(account, { firstComment: 'More at herald.example (link)' }),
      io,
    );
    const [post] = inspect();
    expect(post.author).toBe(`urn:li:organization:${SANDBOX_ORGANIZATION.id}`);
    expect(post.extra!.comments).toEqual([
      {
        id: expect.stringContaining(result.platformPostId),
        actor: post.author,
        text: 'More at herald.example \\(link\\)',
      },
    ]);
    expect(result.firstComment).toEqual({ status: 'posted', commentId: expect.stringMatching(/^urn:li:comment:/) });
  });

  it('a first comment LinkedIn refuses is reported, and the post still counts as published', async () => {
    const account = await connect();
    const { io } = testIO();
    await fault('rejected', 1, 0, 'comment');
    const result = await adapter.publish(publishRequest(account, { firstComment: 'policy says no' }), io);
    const [post] = inspect();
    expect(result.platformPostId).toBe(post.id);
    expect(post.extra?.comments).toBeUndefined();
    expect(result.firstComment).toEqual({ status: 'failed', errorMessage: expect.stringContaining('content policy') });
  });

  it('a link gets an article card unless disableLinkPreview', async () => {
    const account = await connect();
    const { io } = testIO();
    const link = `${sandbox.url}/sandbox/linkedin/_inspect`;
    await adapter.publish(publishRequest(account, { content: `read ${link} now` }), io);
    await adapter.publish(
      publishRequest(account, { content: `again ${link}`, platformSpecificData: { disableLinkPreview: true } }),
      io,
    );
    const [withCard, without] = inspect();
    expect(withCard.extra!.article).toEqual({ source: link, title: '127.0.0.1' });
    expect(without.extra!.article).toBeUndefined();
  });

  it('keeps mentions as mentions', async () => {
    const account = await connect();
    const { io } = testIO();
    await adapter.publish(
      publishRequest(account, {
        content: `Thanks @[Jane Doe](${SANDBOX_PERSON.member}) and @[Herald Sandbox Inc](urn:li:organization:2414183)!`,
      }),
      io,
    );
    expect(inspect()[0].extra!.mentions).toEqual([
      { name: 'Jane Doe', urn: SANDBOX_PERSON.member },
      { name: 'Herald Sandbox Inc', urn: 'urn:li:organization:2414183' },
    ]);
  });

  it('an expired access token is auth (not revoked); the refresh token gets a new one silently', async () => {
    const account = await connect();
    const { io } = testIO();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61 * 86_400_000);
    const error = await caught(adapter.publish(publishRequest(account), io));
    expect(error).toMatchObject({ kind: 'auth', status: 401, revoked: false });
    const tokens = await adapter.refreshTokens!(account, io);
    expect(tokens.accessToken).not.toBe(account.accessToken);
    await adapter.publish(publishRequest({ ...account, accessToken: tokens.accessToken }), io);
    expect(inspect()).toHaveLength(1);
  });

  it('a revoked grant: publish is auth, the refresh fails with invalid_grant = revoked', async () => {
    const account = await connect();
    const { io } = testIO();
    await fetch(`${opts.authUrl}/oauth/v2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: account.refreshToken!, client_id: 'li-client', client_secret: 'li-secret' }),
    });
    await fetch(`${opts.authUrl}/_oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect((await caught(adapter.publish(publishRequest(account), io))).kind).toBe('auth');
    expect(await caught(adapter.refreshTokens!(account, io))).toMatchObject({
      kind: 'auth',
      revoked: true,
      status: 400,
    });
  });

  it('the REVOKED_ACCESS_TOKEN answer is auth with revoked', async () => {
    const account = await connect();
    await fault('auth');
    expect(await caught(adapter.publish(publishRequest(account), testIO().io))).toMatchObject({
      kind: 'auth',
      revoked: true,
      platformCode: 'REVOKED_ACCESS_TOKEN',
    });
  });

  it('rate_limited: a throttle without a reset header waits until midnight UTC', async () => {
    const account = await connect();
    await fault('rate_limited');
    const error = await caught(adapter.publish(publishRequest(account), testIO().io));
    expect(error.kind).toBe('rate_limited');
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    expect(Math.abs(error.retryAfterMs! - (midnight - now.getTime()))).toBeLessThan(5000);
    expect(inspect()).toHaveLength(0);
  });

  it('maps unavailable (503) and rejected (422 duplicate)', async () => {
    const account = await connect();
    await fault('unavailable');
    expect(await caught(adapter.publish(publishRequest(account), testIO().io))).toMatchObject({
      kind: 'unavailable',
      status: 503,
    });
    await fault('rejected');
    expect(await caught(adapter.publish(publishRequest(account), testIO().io))).toMatchObject({
      kind: 'rejected',
      status: 422,
      platformCode: 'duplicate',
    });
    expect(inspect()).toHaveLength(0);
  });

  it('ambiguous: recorded then hung up; findPublished finds it, and not an unsent text', async () => {
    const account = await connect();
    const { io } = testIO();
    const since = new Date();
    await fault('ambiguous');
    const req = publishRequest(account, { content: 'Did (it) go out?' });
    expect((await caught(adapter.publish(req, io))).kind).toBe('ambiguous');
    const posts = inspect();
    expect(posts).toHaveLength(1);
    expect(await adapter.findPublished!(req, since, io)).toEqual({
      platformPostId: posts[0].id,
      platformPostUrl: `https://www.linkedin.com/feed/update/${posts[0].id}`,
    });
    expect(await adapter.findPublished!(publishRequest(account, { content: 'never sent' }), since, io)).toBeNull();
  });

  it('unpublish deletes the post', async () => {
    const account = await connect();
    const { io } = testIO();
    const result = await adapter.publish(publishRequest(account), io);
    await adapter.unpublish!(account, result.platformPostId, io);
    expect(inspect()[0].deleted).toBe(true);
  });

  it('lists the organizations the member administers, optionally only some ids', async () => {
    const account = await connect();
    addLinkedInOrganization(
      sandbox.state('linkedin'),
      { id: '99', localizedName: 'Second Co', vanityName: 'second-co', localizedWebsite: null },
      ['linkedin-user-1'],
    );
    addLinkedInOrganization(
      sandbox.state('linkedin'),
      { id: '100', localizedName: 'Not Mine', vanityName: 'not-mine', localizedWebsite: null },
      ['someone-else'],
    );
    const tokens = { accessToken: account.accessToken! };
    const all = await adapter.destinations!.list(tokens, testIO().io);
    expect(all.map((o) => [o.id, o.details.urn, o.name, o.username])).toEqual([
      ['2414183', 'urn:li:organization:2414183', 'Herald Sandbox Inc', 'herald-sandbox'],
      ['99', 'urn:li:organization:99', 'Second Co', 'second-co'],
    ]);
    expect(
      (await adapter.destinations!.list(tokens, testIO().io, { ids: ['urn:li:organization:99'] })).map((o) => o.id),
    ).toEqual(['99']);
  });

  it('resolves company and profile URLs to mentions', async () => {
    const account = await connect();
    const { io } = testIO();
    expect(await raw.resolveMention(account, { url: 'https://www.linkedin.com/company/herald-sandbox/' }, io)).toEqual({
      urn: 'urn:li:organization:2414183',
      type: 'organization',
      displayName: 'Herald Sandbox Inc',
      mentionFormat: '@[Herald Sandbox Inc](urn:li:organization:2414183)',
      vanityName: 'herald-sandbox',
    });
    const person = await raw.resolveMention(account, { url: 'linkedin.com/in/jane-doe' }, io);
    expect(person).toMatchObject({
      urn: SANDBOX_PERSON.member,
      type: 'person',
      displayName: 'Jane Doe',
      mentionFormat: `@[Jane Doe](${SANDBOX_PERSON.member})`,
    });
    expect(person.warning).toBeTruthy();
    const named = await raw.resolveMention(account, { url: 'linkedin.com/in/jane-doe', displayName: 'Jane D.' }, io);
    expect(named).toMatchObject({
      displayName: 'Jane D.',
      mentionFormat: `@[Jane D.](${SANDBOX_PERSON.member})`,
      warning: null,
    });
    expect((await caught(raw.resolveMention(account, { url: 'linkedin.com/company/nobody' }, io))).kind).toBe(
      'rejected',
    );
  });

  it('a connection refused before sending is unavailable, not ambiguous', async () => {
    const account = await connect();
    const closed = postingAdapter(createLinkedInAdapter({ ...opts, apiUrl: await closedPortUrl() }));
    expect((await caught(closed.publish(publishRequest(account), testIO().io))).kind).toBe('unavailable');
  });

  it('parses profile URLs, company URLs and bare vanity names', () => {
    expect(parseLinkedInUrl('https://www.linkedin.com/in/jane-doe/')).toEqual({ kind: 'person', vanity: 'jane-doe' });
    expect(parseLinkedInUrl('linkedin.com/company/acme?trk=x')).toEqual({ kind: 'organization', vanity: 'acme' });
    expect(parseLinkedInUrl('acme')).toEqual({ kind: 'unknown', vanity: 'acme' });
  });

  it('rejects mixing media kinds before calling LinkedIn', async () => {
    const account = await connect();
    const { io, calls } = testIO(files);
    const error = await caught(
      adapter.publish(
        publishRequest(account, {
          media: [
            { type: 'image', url: IMAGE },
            { type: 'video', url: VIDEO },
          ],
        }),
        io,
      ),
    );
    expect(error.kind).toBe('rejected');
    expect(calls).toHaveLength(0);
  });
});

describe('LinkedIn simulator validation', () => {
  const body = (author: string) => ({
    author,
    commentary: 'plain words',
    visibility: 'PUBLIC',
    distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
    lifecycleState: 'PUBLISHED',
  });

  async function post(headers: Record<string, string>, json: unknown) {
    const res = await fetch(`${opts.apiUrl}/rest/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(json),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  }

  it('rejects a /rest call without LinkedIn-Version, with a sunset version, or without the Rest.li header', async () => {
    const account = await connect();
    const auth = { authorization: `Bearer ${account.accessToken}` };
    const good = body('urn:li:person:linkedin-user-1');
    expect(await post({ ...auth, 'x-restli-protocol-version': '2.0.0' }, good)).toMatchObject({
      status: 400,
      body: { code: 'VERSION_MISSING' },
    });
    expect(
      await post({ ...auth, 'x-restli-protocol-version': '2.0.0', 'linkedin-version': '202201' }, good),
    ).toMatchObject({ status: 426, body: { code: 'NONEXISTENT_VERSION' } });
    expect((await post({ ...auth, 'linkedin-version': CURRENT_VERSION }, good)).status).toBe(400);
    expect(
      (await post({ ...auth, 'x-restli-protocol-version': '2.0.0', 'linkedin-version': CURRENT_VERSION }, good)).status,
    ).toBe(201);
    expect(inspect()).toHaveLength(1);
  });

  it('rejects posts missing required fields, with unescaped text, or as someone else', async () => {
    const account = await connect();
    const headers = {
      authorization: `Bearer ${account.accessToken}`,
      'x-restli-protocol-version': '2.0.0',
      'linkedin-version': CURRENT_VERSION,
    };
    for (const field of ['author', 'commentary', 'visibility', 'distribution', 'lifecycleState']) {
      const b: Record<string, unknown> = body('urn:li:person:linkedin-user-1');
      delete b[field];
      const res = await post(headers, b);
      expect(res.status).toBe(422);
      expect(res.body.message).toContain(`/${field}`);
    }
    expect((await post(headers, { ...body('urn:li:person:linkedin-user-1'), commentary: 'a (b)' })).status).toBe(422);
    expect((await post(headers, body('urn:li:person:someone-else'))).status).toBe(403);
    expect(
      (
        await post(headers, {
          ...body('urn:li:person:linkedin-user-1'),
          content: { media: { id: 'urn:li:image:nope' } },
        })
      ).status,
    ).toBe(422);
    expect(inspect()).toHaveLength(0);
  });

  it('the adapter surfaces a sunset LinkedIn-Version as rejected NONEXISTENT_VERSION', async () => {
    const account = await connect();
    const old = postingAdapter(createLinkedInAdapter({ ...opts, version: '202001' }));
    expect(await caught(old.publish(publishRequest(account), testIO().io))).toMatchObject({
      kind: 'rejected',
      status: 426,
      platformCode: 'NONEXISTENT_VERSION',
    });
  });
});

describe('LinkedIn little text', () => {
  it('escapes reserved characters, keeps mentions, and round-trips', () => {
    const text = 'a_b *c* (d) [e] {f} <g> #h ~i | \\ @[Jane Doe](urn:li:person:abc) @plain';
    const { commentary, mentions } = toLittleText(text);
    expect(commentary).toBe(
      'a\\_b \\*c\\* \\(d\\) \\[e\\] \\{f\\} \\<g\\> \\#h \\~i \\| \\\\ @[Jane Doe](urn:li:person:abc) \\@plain',
    );
    expect(mentions).toEqual([{ name: 'Jane Doe', urn: 'urn:li:person:abc' }]);
    expect(fromLittleText(commentary)).toBe(text);
  });
});
