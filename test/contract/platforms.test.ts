import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/platforms/catalogue.js';
import { createPlatformIO } from '../../src/platforms/io.js';
import {
  PlatformError,
  type AccountCredentials,
  type PlatformAdapter,
  type PublishRequest,
  type PublishResult,
} from '../../src/platforms/types.js';
import { CONTRACT_FIXTURES } from '../helpers/contract-fixtures.js';
import { pngBytes, postingAdapter, publishRequest as basePublishRequest, testIO } from '../helpers/platform-io.js';
import { createTenant } from '../helpers/posts.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';

/*
 * The platform contract, run over every catalogue entry that has an adapter, each against its own
 * simulator: fault kinds end as the kinds the engine acts on, an ambiguous publish is recorded once and
 * found by lookup, the declared capabilities are the implemented ones, and validation and the adapter
 * agree on text at the limit and one over. A platform joins by its catalogue line and its fixture
 * (test/helpers/contract-fixtures.ts).
 */

const withAdapter = CATALOGUE.filter((d) => d.createAdapter);
let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let sdk: Awaited<ReturnType<typeof createTenant>>['sdk'];

beforeAll(async () => {
  h = await createSandboxEnv(
    withAdapter.flatMap((d) => (CONTRACT_FIXTURES[d.id] ? [CONTRACT_FIXTURES[d.id].simulator()] : [])),
  );
  sdk = (await createTenant(h.env)).sdk;
});
afterAll(async () => h?.close());

const baseIO = () => createPlatformIO({ now: () => new Date(), timeoutMs: 10_000 });

async function caught(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

/** Text whose `count` is exactly `limit`: as many `piece`s as fit, then ASCII letters. Null when it cannot be hit. */
function textAtLimit(piece: string, count: (t: string) => number, limit: number): string | null {
  let k = Math.max(0, Math.floor(limit / Math.max(1, count(piece))));
  while (k > 0 && count(piece.repeat(k)) > limit) k--;
  let text = piece.repeat(k);
  while (count(text) < limit) text += 'a';
  return count(text) === limit ? text : null;
}

const PIECES: [string, string][] = [
  ['emoji', '😀'],
  ['family emoji', '👨‍👩‍👧'],
  ['CJK', '漢字'],
  ['combining marks', 'e\u0301'],
  ['URLs', 'https://example.com/a '],
];

it('every catalogue entry with an adapter has a contract fixture', () => {
  expect(withAdapter.length).toBeGreaterThan(0);
  expect(withAdapter.filter((d) => !CONTRACT_FIXTURES[d.id]).map((d) => d.id)).toEqual([]);
});

describe.each(withAdapter.map((d) => [d.id, d] as const))('%s', (platform, descriptor) => {
  const fixture = CONTRACT_FIXTURES[platform];
  let adapter: PlatformAdapter<PublishResult>;
  let account: AccountCredentials;
  const base = () => `/sandbox/${platform}`;
  const inspect = async () =>
    (await sandboxCall(h.sandbox, 'GET', `${base()}/_inspect`)).posts as {
      id: string;
      text: string;
      deleted?: boolean;
    }[];
  const fault = (kind: string, op = 'publish') =>
    sandboxCall(h.sandbox, 'POST', `${base()}/_faults`, { kind, count: 1, op });

  // Every publish of the suite carries the fixture's media when the platform needs some.
  const media = fixture?.media;
  const psd = fixture?.platformSpecificData;
  const publishRequest = (acc: AccountCredentials, over: Partial<PublishRequest> = {}) =>
    basePublishRequest(acc, {
      ...(media ? { media: [media.ref] } : {}),
      ...(psd ? { platformSpecificData: psd } : {}),
      ...over,
    });
  const io = () =>
    media ? testIO({ [media.ref.url]: { bytes: media.bytes, contentType: media.contentType } }).io : baseIO();

  beforeAll(async () => {
    if (fixture.config) await sandboxCall(h.sandbox, 'POST', `${base()}/_config`, fixture.config);
    const raw = h.env.ctx.platforms.get(platform);
    expect(raw, `${platform} has an adapter under the sandbox configuration`).toBeDefined();
    adapter = postingAdapter(raw!);
    account = await fixture.connect(raw!, io());
  });
  beforeEach(async () => {
    await sandboxCall(h.sandbox, 'POST', `${base()}/_faults`, { count: 0 });
  });

  it.each(['rate_limited', 'unavailable'])('a %s publish is retryable, and the retry publishes once', async (kind) => {
    await fault(kind);
    const req = publishRequest(account);
    expect((await caught(adapter.publish(req, io()))).kind).toBe(kind);
    expect((await inspect()).filter((p) => p.text === req.content)).toEqual([]);
    const result = await adapter.publish(req, io());
    expect((await inspect()).filter((p) => p.text === req.content).map((p) => p.id)).toEqual([result.platformPostId]);
  });

  it('a rejected publish is final and publishes nothing', async () => {
    await fault('rejected');
    const req = publishRequest(account);
    expect((await caught(adapter.publish(req, io()))).kind).toBe('rejected');
    expect((await inspect()).filter((p) => p.text === req.content)).toEqual([]);
  });

  it('an auth failure is reported as auth (the engine refreshes, then fails)', async () => {
    await fault('auth');
    const req = publishRequest(account);
    expect((await caught(adapter.publish(req, io()))).kind).toBe('auth');
    expect((await inspect()).filter((p) => p.text === req.content)).toEqual([]);
  });

  it('an ambiguous publish is recorded exactly once and, with lookup, found rather than re-sent', async () => {
    await fault('ambiguous');
    const since = new Date(Date.now() - 1000);
    const req = publishRequest(account);
    // A platform whose protocol settles the outcome itself (YouTube's upload status query) answers the post.
    const outcome = await adapter.publish(req, io()).then(
      (r) => r,
      (e: unknown) => e,
    );
    const posted = (await inspect()).filter((p) => p.text === req.content);
    expect(posted).toHaveLength(1);
    if (outcome instanceof PlatformError) expect(outcome.kind).toBe('ambiguous');
    else expect((outcome as PublishResult).platformPostId).toBe(posted[0].id);
    if (descriptor.capabilities.lookup) {
      expect((await adapter.findPublished!(req, since, io()))?.platformPostId).toBe(posted[0].id);
    }
  });

  it('declares lookup exactly when findPublished works against the simulator', async () => {
    expect(typeof adapter.findPublished === 'function').toBe(descriptor.capabilities.lookup === true);
    if (!adapter.findPublished) return;
    const since = new Date(Date.now() - 1000);
    const req = publishRequest(account);
    const result = await adapter.publish(req, io());
    expect((await adapter.findPublished(req, since, io()))?.platformPostId).toBe(result.platformPostId);
    expect(await adapter.findPublished(publishRequest(account), since, io())).toBeNull();
  });

  it('declares destinations of the kind its group lists, and a selected destination is where it posts', async () => {
    expect(adapter.destinations?.kind).toBe(descriptor.capabilities.destinations?.kind);
    const group = adapter.destinations;
    if (!group) return;
    // The token that lists: the account's own, or the one the platform keeps for it (a Page token publishes).
    const listing = group.listingToken?.(account) ?? account.accessToken!;
    const listed = await group.list({ accessToken: listing }, io());
    expect(listed.length).toBeGreaterThan(0);
    // A detail lookup answers the named destination only.
    expect((await group.list({ accessToken: listing }, io(), { ids: [listed[0].id] })).map((d) => d.id)).toEqual([
      listed[0].id,
    ]);
    const user = { platformUserId: account.platformUserId, username: account.username };
    const tokens = { accessToken: account.accessToken!, refreshToken: account.refreshToken };
    const selection = await group.select(listed[0], { profile: user, tokens }, io());
    // The destination is who the account posts as (its name shows), or where it posts by default
    // (a Pinterest board: the account stays the user, and the board is named in its metadata).
    const shown = selection.profile.displayName ?? selection.profile.username;
    if (shown !== listed[0].name) {
      expect(shown).toBe(user.username);
      expect(Object.values(selection.metadata)).toEqual(expect.arrayContaining([listed[0].id, listed[0].name]));
    }
    const chosen = {
      ...account,
      metadata: { ...account.metadata, ...selection.metadata },
      accessToken: selection.tokens?.accessToken ?? account.accessToken,
    };
    const result = await adapter.publish(publishRequest(chosen), io());
    const posted = (await sandboxCall(h.sandbox, 'GET', `${base()}/_inspect`)).posts.find(
      (p: { id: string }) => p.id === result.platformPostId,
    );
    expect(String(posted.destination)).toContain(listed[0].id);
    if (!group.personal) return;
    const personal = await group.select(null, { profile: user, tokens }, io());
    const asUser = await adapter.publish(
      publishRequest({ ...account, metadata: { ...account.metadata, ...personal.metadata } }),
      io(),
    );
    const own = (await sandboxCall(h.sandbox, 'GET', `${base()}/_inspect`)).posts.find(
      (p: { id: string }) => p.id === asUser.platformPostId,
    );
    expect(own.destination ?? null).toBeNull();
  });

  it('declares unpublish exactly when delete works against the simulator', async () => {
    expect(typeof adapter.unpublish === 'function').toBe(descriptor.capabilities.unpublish === true);
    if (!adapter.unpublish) return;
    const req = publishRequest(account);
    const result = await adapter.publish(req, io());
    await adapter.unpublish(account, result.platformPostId, io());
    expect((await inspect()).find((p) => p.id === result.platformPostId)).toMatchObject({ deleted: true });
  });

  it('fails the lookup and delete operations with the kinds the simulator is told', async () => {
    const req = publishRequest(account);
    const result = await adapter.publish(req, io());
    if (adapter.findPublished) {
      await fault('unavailable', 'lookup');
      expect((await caught(adapter.findPublished(req, new Date(Date.now() - 1000), io()))).kind).toBe('unavailable');
    }
    if (adapter.unpublish) {
      await fault('rate_limited', 'delete');
      expect((await caught(adapter.unpublish(account, result.platformPostId, io()))).kind).toBe('rate_limited');
      await adapter.unpublish(account, result.platformPostId, io());
    }
  });

  const simOps = () => fixture.simulator().faultOps;

  it('fails a media upload with the kind the simulator is told, and publishes nothing', async () => {
    if (!simOps().includes('upload')) {
      expect(
        (await sandboxCall(h.sandbox, 'POST', `${base()}/_faults`, { kind: 'unavailable', count: 1, op: 'upload' }))
          .error,
      ).toMatch(/no upload operation/);
      return;
    }
    const image = 'https://media.test/contract.png';
    const { io: mediaIO } = media
      ? { io: io() }
      : testIO({ [image]: { bytes: pngBytes(3000), contentType: 'image/png' } });
    for (const kind of ['unavailable', 'rate_limited', 'rejected'] as const) {
      await fault(kind, 'upload');
      const req = publishRequest(
        account,
        media ? {} : { media: [{ type: 'image', url: image, mimeType: 'image/png' }] },
      );
      expect((await caught(adapter.publish(req, mediaIO))).kind).toBe(kind);
      expect((await inspect()).filter((p) => p.text === req.content)).toEqual([]);
    }
  });

  it('a token endpoint that fails transiently is retryable, a dead grant is a revoked auth failure', async () => {
    if (!adapter.refreshTokens || !simOps().includes('token')) return;
    await fault('unavailable', 'token');
    expect((await caught(adapter.refreshTokens(account, io()))).kind).toBe('unavailable');
    await fault('auth', 'token');
    expect(await caught(adapter.refreshTokens(account, io()))).toMatchObject({ kind: 'auth', revoked: true });
  });

  for (const rule of descriptor.text) {
    for (const [name, piece] of PIECES) {
      it(`validation and the adapter agree at ${rule.limit} ${rule.unit} and one over, with ${name}`, async () => {
        const atLimit = textAtLimit(piece, rule.count, rule.limit);
        if (atLimit === null) return;
        for (const text of [atLimit, `${atLimit}b`]) {
          const res = (
            await sdk.validate.validatePost({
              body: {
                content: text,
                ...(media ? { mediaItems: [{ type: media.ref.type, url: media.ref.url }] } : {}),
                platforms: [{ platform, ...(psd ? { platformSpecificData: psd } : {}) }],
              } as any,
            })
          ).data as { valid: boolean; errors: unknown[] };
          const published = await adapter.publish(publishRequest(account, { content: text }), io()).then(
            () => true,
            (e: unknown) => {
              expect(e).toBeInstanceOf(PlatformError);
              expect((e as PlatformError).kind).toBe('rejected');
              return false;
            },
          );
          expect({ text: `${rule.count(text)} ${rule.unit}`, published }).toEqual({
            text: `${rule.count(text)} ${rule.unit}`,
            published: res.valid,
          });
        }
      });
    }
  }
});
