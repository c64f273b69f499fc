import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboxOf } from '../../src/domain/inbox/access.js';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { MALFORMED_TEXT } from '../../src/lib/text.js';
import type { Platform } from '../../src/platforms/types.js';
import { allSimulators } from '../../src/sandbox/index.js';
import { SANDBOX_ORGANIZATION } from '../../src/sandbox/linkedin/index.js';
import { youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import { findInboxSync } from '../../src/store/inbox/sync.js';
import { dialect } from '../helpers/context.js';
import { connectEveryPlatform } from '../helpers/every-platform.js';
import { createNow, createOAuthE2E, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { createTenant } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * Hostile input that arrives from the platforms rather than from a request (issue 36): anyone who can
 * message, mention or comment on a connected account writes into Herald. For every simulator with an
 * inbox (`POST /_inbound`, the sandbox contract), items with a NUL, a lone surrogate, a 1 MB text and
 * deeply nested JSON are written to the account, then a normal one; Herald's webhooks receive what the
 * platform pushes, its inbox sync polls the rest, and every inbox read of GET /v1/openapi.json is called.
 *
 * - no 5xx anywhere: not from a simulator (a hostile item is stored, or refused with a 4xx as the
 *   platform would), not from Herald's webhook receivers (the simulator reports each delivery's
 *   status), not from any inbox read;
 * - every sync succeeds and its cursor moves on;
 * - each hostile item the platform accepted is listed with its text cleaned (lib/text.ts), or was
 *   skipped and counted; no answer of Herald carries a NUL or a lone surrogate;
 * - the normal item written after them is listed.
 *
 * On SQLite and PostgreSQL (which cannot store a NUL at all).
 */

let e: OAuthE2E;
let t: Awaited<ReturnType<typeof createTenant>>;
let accounts: Map<Platform, any>;
/** Per comment-only platform: the post an inbound comment goes under. */
const posts = new Map<string, string>();
/** The simulators with an inbox, found by asking each one. */
let inboxes: Platform[] = [];

const DEEP = 5_000;
/** Deeply nested JSON, as text (a value this deep is never built: stringifying it would exhaust the stack). */
const DEEP_JSON = '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP);
const DEEP_MARK = '__deep_json__';
const BIG = 1_000_000;
/**
 * The hostile items written to one platform's account, each with the text it must be listed with once
 * cleaned (none: it cannot be listed as text).
 */
const hostile = (p: string): { name: string; text: unknown; from?: unknown; listed?: string }[] => [
  { name: 'NUL', text: `hostile nul \u0000 on ${p}`, listed: `hostile nul  on ${p}` },
  { name: 'lone surrogate', text: `hostile half \ud800 on ${p}`, listed: `hostile half \ufffd on ${p}` },
  { name: '1 MB text', text: `hostile big on ${p} ${'x'.repeat(BIG)}`, listed: `hostile big on ${p} xxxxxxxx` },
  { name: 'deep JSON text', text: DEEP_MARK },
  {
    name: 'deep JSON author',
    text: `hostile deep author on ${p}`,
    from: DEEP_MARK,
    listed: `hostile deep author on ${p}`,
  },
];
const normal = (p: string) => `a normal message after the hostile ones on ${p}`;

const sim = (platform: string, method: string, path: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/${platform}${path}`, body);

async function inbound(platform: string, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${e.sandbox.url}/sandbox/${platform}/_inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body).replaceAll(`"${DEEP_MARK}"`, DEEP_JSON),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** One inbound item on `platform`: a message where the platform has them, else a comment or a review. */
function item(platform: string, account: string, text: unknown, from?: unknown): Record<string, unknown> {
  const extra = from === undefined ? {} : { from };
  switch (platform) {
    case 'googlebusiness':
      return { kind: 'review', account, rating: 4, text, ...(from === undefined ? {} : { reviewer: from }) };
    case 'youtube':
      return { kind: 'comment', account, postId: posts.get(platform), text, author: from ?? { name: 'Fan' } };
    case 'linkedin':
    case 'threads':
      return { kind: 'comment', account, postId: posts.get(platform), text, ...extra };
    default:
      return { kind: 'message', account, text, ...extra };
  }
}

/** Every string of an answer (keys too): those that break the stored-text rule. */
function malformed(value: unknown): string[] {
  const out: string[] = [];
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (MALFORMED_TEXT.test(v)) out.push(JSON.stringify(v.slice(0, 60)));
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (MALFORMED_TEXT.test(k)) out.push(JSON.stringify(k));
        stack.push(x);
      }
    }
  }
  return out;
}

beforeAll(async () => {
  e = await createOAuthE2E(
    (now) => [...allSimulators().filter((s) => s.platform !== 'youtube'), youTubeSimulator({ now })],
    { env: { WEBHOOK_ALLOW_INSECURE: '1', RATE_LIMIT_DISABLED: 'true' } },
  );
  t = await createTenant(e.env, { addons: ['inbox'] });
  // A simulator without an inbox answers every `_inbound` with a 400 that says so.
  for (const s of allSimulators()) {
    const probe = await inbound(s.platform, { kind: 'message', account: 'nobody_known_here', text: 'hi' });
    if (!/has no inbox/.test(JSON.stringify(probe.body))) inboxes.push(s.platform as Platform);
  }
  accounts = await connectEveryPlatform(
    { base: e.baseUrl, key: t.apiKey, tenantId: t.userId },
    e.sandbox.url,
    t.profileId,
    inboxes,
  );
  // A LinkedIn member's comments need the restricted r_member_social: the account posts as the sandbox
  // company page, whose comments Herald reads (as test/inbox/linkedin-inbox.test.ts does).
  const org = await e.env.request(
    t.apiKey,
    'PUT',
    `/v1/accounts/${accounts.get('linkedin')._id}/linkedin-organization`,
    {
      accountType: 'organization',
      selectedOrganization: {
        id: SANDBOX_ORGANIZATION.id,
        urn: `urn:li:organization:${SANDBOX_ORGANIZATION.id}`,
        name: SANDBOX_ORGANIZATION.localizedName,
      },
    },
  );
  expect(org.status, JSON.stringify(org.body)).toBe(200);
  const listed = (await e.env.request(t.apiKey, 'GET', `/v1/accounts?profileId=${t.profileId}`)).body.accounts as any[];
  for (const a of listed) accounts.set(a.platform, a);
  // The comment-only platforms need a post of the account to comment under.
  await createNow(t.sdk, 'linkedin', accounts.get('linkedin')._id, { content: 'A post to comment on' });
  await createNow(t.sdk, 'threads', accounts.get('threads')._id, { content: 'A thread to reply to' });
  await createNow(
    t.sdk,
    'youtube',
    accounts.get('youtube')._id,
    { content: 'A video', mediaItems: [{ type: 'video', url: e.mediaUrl('hostile.mp4', 300_000, 'video/mp4') }] },
    { title: 'Hostile' },
  );
  await settle(e, 6);
  for (const platform of ['linkedin', 'threads', 'youtube']) {
    const [post] = (await sim(platform, 'GET', '/_inspect')).posts as any[];
    expect(post, platform).toBeDefined();
    posts.set(platform, post.id);
  }
}, 180_000);
afterAll(async () => e?.close());

describe('hostile data from every simulator with an inbox', () => {
  it('never answers a 5xx, moves every sync on, cleans or skips each hostile item and lists the next one', async () => {
    expect(inboxes.length).toBeGreaterThanOrEqual(10);
    const problems: string[] = [];
    const accepted = new Map<string, string[]>();
    const syncs = new Map<string, { before: string | null }>();

    for (const platform of inboxes) {
      const account = accounts.get(platform);
      const polled = Boolean(inboxOf(e.env.ctx, platform)?.sync);
      // A first poll, so that the cursor has a value to move from.
      if (polled) {
        await syncInboxAccount(e.env.ctx, account._id);
        syncs.set(platform, { before: (await findInboxSync(e.env.ctx.db.kysely, account._id))?.cursor ?? null });
      }
      e.env.clock.advance(1_000);
      const ok: string[] = [];
      for (const h of hostile(platform)) {
        const res = await inbound(platform, item(platform, account.username, h.text, h.from));
        if (res.status >= 500) problems.push(`${platform} ${h.name}: the simulator answered ${res.status}`);
        else if (res.status === 200) {
          ok.push(h.name);
          const pushed = res.body?.webhookStatus;
          if (typeof pushed === 'number' && pushed >= 500)
            problems.push(`${platform} ${h.name}: Herald's webhook answered ${pushed}`);
        }
        e.env.clock.advance(1_000);
      }
      accepted.set(platform, ok);
      const after = await inbound(platform, item(platform, account.username, normal(platform)));
      if (after.status !== 200) problems.push(`${platform} normal: ${after.status} ${JSON.stringify(after.body)}`);
      else if (typeof after.body?.webhookStatus === 'number' && after.body.webhookStatus >= 300)
        problems.push(`${platform} normal: Herald's webhook answered ${after.body.webhookStatus}`);
    }

    // Herald's polls: each succeeds, and its cursor moves past the hostile items.
    const skipped = new Map<string, number>();
    for (const [platform, { before }] of syncs) {
      const accountId = accounts.get(platform as Platform)._id;
      const outcome = await syncInboxAccount(e.env.ctx, accountId);
      if (outcome.kind !== 'synced') {
        problems.push(
          `${platform}: the sync ${outcome.kind}: ${outcome.kind === 'failed' ? outcome.error.message : ''}`,
        );
        continue;
      }
      skipped.set(platform, outcome.counts.skipped ?? 0);
      const after = (await findInboxSync(e.env.ctx.db.kysely, accountId))?.cursor ?? null;
      if (after === null || after === before) problems.push(`${platform}: the cursor did not move (${after})`);
    }

    // Every inbox read of the OpenAPI document, with the ids the lists give.
    const doc = (await e.env.request(null, 'GET', '/v1/openapi.json')).body;
    // A read addressed by more than one id (a message's attachment by conversation, message and index)
    // answers a redirect to a stored file, not a listing: its own tests (test/inbox/) cover it.
    const reads = Object.entries<any>(doc.paths)
      .filter(([path, item]) => path.startsWith('/v1/inbox') && item.get && (path.match(/\{/g) ?? []).length <= 1)
      .map(([path]) => path);
    /** The query parameters a read requires besides the account and the page (search's `query`). */
    const requiredOf = (path: string) =>
      (doc.paths[path].get.parameters ?? [])
        .filter((p: any) => p.in === 'query' && p.required && p.name !== 'accountId' && p.name !== 'limit')
        .map((p: any) => `${encodeURIComponent(p.name)}=normal&`)
        .join('');
    /** The largest page each read allows (its `limit` parameter's maximum). */
    const pageOf = (path: string) => {
      const limit = (doc.paths[path].get.parameters ?? []).find((p: any) => p.name === 'limit');
      return limit?.schema?.maximum ?? 100;
    };
    expect(reads.length).toBeGreaterThanOrEqual(6);
    const get = async (url: string) => {
      const res = await e.env.request(t.apiKey, 'GET', url);
      if (res.status >= 500) problems.push(`GET ${url}: ${res.status}`);
      else if (res.status !== 200) problems.push(`GET ${url}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      const bad = malformed(res.body);
      if (bad.length) problems.push(`GET ${url}: malformed text in the answer: ${bad.slice(0, 3).join(', ')}`);
      return res.body;
    };
    const conversations = (await get(`/v1/inbox/conversations?limit=${pageOf('/v1/inbox/conversations')}`))
      .data as any[];
    const commented = (await get(`/v1/inbox/comments?limit=${pageOf('/v1/inbox/comments')}`)).data as any[];
    const ids: Record<string, string[]> = {
      conversationId: conversations.map((c) => c.id),
      postId: commented.map((p) => p.id),
    };
    const texts: string[] = [];
    const collect = (body: any) => {
      const seen = JSON.stringify(body ?? null);
      texts.push(seen);
    };
    // A conversation or a post's comments are read with the account they belong to.
    const accountOf = new Map<string, string>([
      ...conversations.map((c): [string, string] => [c.id, c.accountId]),
      ...commented.map((p): [string, string] => [p.id, p.accountId]),
    ]);
    for (const path of reads) {
      const param = /\{([^}]+)\}/.exec(path)?.[1];
      const values = param ? (ids[param] ?? []) : [''];
      if (param && values.length === 0) problems.push(`${path}: no ${param} to read it with`);
      for (const v of values) {
        const url = param ? path.replace(`{${param}}`, encodeURIComponent(v)) : path;
        const query = `?${requiredOf(path)}${param ? `accountId=${accountOf.get(v) ?? ''}&` : ''}limit=${pageOf(path)}`;
        collect(await get(`${url}${query}`));
      }
    }
    const all = texts.join('\n');

    // On every platform Herald has an inbox for, the normal item is listed; each accepted hostile one is
    // listed, cleaned, or was skipped and counted.
    for (const platform of inboxes.filter((p) => inboxOf(e.env.ctx, p))) {
      if (!all.includes(normal(platform))) problems.push(`${platform}: the normal item is not listed`);
      const ok = new Set(accepted.get(platform));
      const missing = hostile(platform).filter((h) => ok.has(h.name) && h.listed && !all.includes(h.listed));
      if (missing.length > (skipped.get(platform) ?? 0))
        problems.push(
          `${platform}: accepted, neither listed nor counted as skipped: ${missing.map((h) => h.name).join(', ')}`,
        );
    }

    console.log(
      `hostile inbound (${dialect}): ${inboxes.length} simulators with an inbox (${inboxes.join(', ')}); ` +
        `accepted ${[...accepted].map(([p, a]) => `${p} ${a.length}/${hostile(p).length}`).join(', ')}; ` +
        `skipped ${[...skipped].map(([p, n]) => `${p} ${n}`).join(', ')}`,
    );
    expect(problems).toEqual([]);
  }, 180_000);
});
