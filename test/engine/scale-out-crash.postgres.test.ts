import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, PLATFORMS } from '../../src/platforms/catalogue.js';
import type { Platform } from '../../src/platforms/types.js';
import { allSimulators } from '../../src/sandbox/index.js';
import { solidImage } from '../fixtures/media.js';
import { startBalancer, type Balancer } from '../helpers/balancer.js';
import { TEST_DATABASE_URL } from '../helpers/context.js';
import { call, connectEveryPlatform, type HttpClient } from '../helpers/every-platform.js';
import { fakeMp4 } from '../helpers/mp4.js';
import { startServer, type Proc } from '../helpers/processes.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';
import { waitUntil } from '../helpers/test-platform-processes.js';

/*
 * The README's scale-out recipe under a crash (issue 36): three Herald processes (API and worker each)
 * on one PostgreSQL, one shared media directory, the same secret, and PUBLIC_URL naming a balancer in
 * front of them. One account of every platform of the catalogue, connected through the balancer; media
 * uploaded through it (so a file lands through one process and is published, or served to a platform,
 * by another); then a burst of media posts, an image and a video on every platform that takes them, and
 * one process killed with SIGKILL while the burst is being published.
 *
 * What the engine promises (docs/publishing-engine.md), asserted per target:
 * - no duplicate: each post is at most once on its platform;
 * - nothing lost or stuck: every target ends `published`, with its platform id, and is on the
 *   platform exactly once; or, only on a platform Herald cannot look a post up on (a target whose send
 *   was cut off), `unknown`, listed by GET /v1/posts?status=unknown with the reason, and on the
 *   platform at most once. No target is left pending, publishing or processing, and no job is left.
 * - none `failed`: nothing was refused, so nothing may fail.
 *
 * PostgreSQL only: several processes need FOR UPDATE SKIP LOCKED.
 */

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let lb: Balancer;
const procs: (Proc & { url: string })[] = [];

const NO_LOOKUP = new Set<string>(CATALOGUE.filter((d) => !d.capabilities.lookup).map((d) => d.id));
/** Platforms that take no video (Google Business: one image), and those that take no image. */
const IMAGE_ONLY = new Set<string>(['googlebusiness']);
const VIDEO_ONLY = new Set<string>(['youtube', 'tiktok']);
/**
 * Google fetches a local post's photo itself, by public https URL only (rules.ts): the cluster's own
 * media are on loopback http, so its image is one on the web (the simulator, like Google, takes the URL).
 */
const GOOGLE_IMAGE = 'https://images.example.com/scale-out.jpg';
/** Posts of each kind per platform. */
const EACH = 2;

/**
 * What each platform needs besides the text and media (a title, a subreddit). Where the platform keeps
 * the title rather than the text of a media post (a Reddit link post, a Snapchat saved story), the
 * post's marker goes there too, so that each copy on the platform can be counted.
 */
const psd = (platform: Platform, marker: string): Record<string, unknown> =>
  ({
    reddit: { subreddit: 'test', title: marker },
    youtube: { title: 'Scale-out crash' },
    pinterest: { title: 'Scale-out crash' },
    tiktok: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
    snapchat: { contentType: 'saved_story' },
  })[platform as string] ?? {};

beforeAll(async () => {
  h = await createSandboxEnv(allSimulators(), { env: { OUTBOUND_ALLOW_PRIVATE: '1' } });
  lb = await startBalancer();
  // Video processing in a fraction of a second: the checks after it run at real time.
  for (const platform of PLATFORMS)
    await sandboxCall(h.sandbox, 'POST', `/sandbox/${platform}/_config`, { processingMs: 300 });
  const shared: Record<string, string> = {
    DATABASE_URL: TEST_DATABASE_URL!,
    DATABASE_SCHEMA: h.env.config.databaseSchema!,
    // The recipe's "one shared directory": the same DATA_DIR for every process.
    DATA_DIR: h.env.config.dataDir,
    SECRET_KEY: h.env.config.secretKey!,
    PUBLIC_URL: lb.url,
    SANDBOX_URL: h.sandbox.url,
    OUTBOUND_ALLOW_PRIVATE: '1',
    RATE_LIMIT_DISABLED: 'true',
    LOG_LEVEL: 'info',
    // A killed process's jobs go to the others once its lease ends.
    WORKER_LEASE_MS: '5000',
    WORKER_POLL_MS: '50',
  };
  await Promise.all([0, 1, 2].map(async () => procs.push(await startServer(shared, 200_000))));
  lb.setBackends(procs.map((p) => p.url));
}, 240_000);

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await lb?.close();
  await h?.close();
});

/** Stores bytes through the balancer's presign and upload routes; answers the public URL. */
async function upload(c: HttpClient, name: string, bytes: Buffer, contentType: string): Promise<string> {
  const presigned = await call(c, 'POST', '/v1/media/presign', { filename: name, contentType, size: bytes.length });
  expect(presigned.status, JSON.stringify(presigned.body)).toBe(200);
  const put = await fetch(presigned.body.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body: bytes,
  });
  expect(put.status, await put.clone().text()).toBe(200);
  return presigned.body.publicUrl as string;
}

/** Each simulator's published items whose text carries `marker`, by marker. */
async function onPlatforms(): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  for (const platform of PLATFORMS) {
    const { posts } = await sandboxCall(h.sandbox, 'GET', `/sandbox/${platform}/_inspect`);
    for (const p of posts as { text?: string; deleted?: boolean }[]) {
      const m = /scale-out #(\d+) /.exec(JSON.stringify(p));
      if (m) seen.set(m[1], (seen.get(m[1]) ?? 0) + 1);
    }
  }
  return seen;
}

describe('three processes on one PostgreSQL and one media directory, one killed mid-burst', () => {
  it('publishes media on every platform with no duplicate, nothing lost and nothing stuck', async () => {
    const { userId, apiKey } = await h.env.createUser();
    const c: HttpClient = { base: lb.url, key: apiKey, tenantId: userId };
    const profile = await call(c, 'POST', '/v1/profiles', { name: 'Scale-out' });
    const profileId = profile.body.profile._id as string;
    const accounts = await connectEveryPlatform(c, h.sandbox.url, profileId);

    const square = await upload(c, 'square.jpg', await solidImage(1080, 1080, 'jpeg'), 'image/jpeg');
    const tall = await upload(c, 'tall.jpg', await solidImage(1080, 1920, 'jpeg'), 'image/jpeg');
    const video = await upload(
      c,
      'clip.mp4',
      fakeMp4({ seconds: 10, width: 720, height: 1280, size: 64 * 1024 }),
      'video/mp4',
    );

    type Planned = { n: number; platform: Platform; kind: 'image' | 'video'; body: Record<string, unknown> };
    const planned: Planned[] = [];
    for (const platform of PLATFORMS) {
      const kinds = (['image', 'video'] as const).filter((k) =>
        k === 'image' ? !VIDEO_ONLY.has(platform) : !IMAGE_ONLY.has(platform),
      );
      for (const kind of kinds)
        for (let i = 0; i < EACH; i++) {
          const n = planned.length;
          const marker = `scale-out #${n} ${platform} ${kind}`;
          const url =
            kind === 'video'
              ? video
              : platform === 'googlebusiness'
                ? GOOGLE_IMAGE
                : platform === 'snapchat'
                  ? tall
                  : square;
          planned.push({
            n,
            platform,
            kind,
            body: {
              content: marker,
              mediaItems: [{ type: kind, url }],
              platforms: [
                { platform, accountId: accounts.get(platform)._id, platformSpecificData: psd(platform, marker) },
              ],
            },
          });
        }
    }
    // Interleaved, so that every platform's posts are in flight when the process dies.
    planned.sort(
      (a, b) => (a.n % EACH) - (b.n % EACH) || PLATFORMS.indexOf(a.platform) - PLATFORMS.indexOf(b.platform),
    );

    // The burst: every post created through the balancer (so by all three processes), all due at the
    // same moment a few seconds ahead, so that the three workers share them.
    const due = new Date(Date.now() + 5_000).toISOString();
    const created = new Map<number, string>();
    const queue = [...planned];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let p = queue.shift(); p; p = queue.shift()) {
          const res = await call(c, 'POST', '/v1/posts', { ...p.body, scheduledFor: due });
          if (res.status !== 201) throw new Error(`post #${p.n}: ${res.status} ${JSON.stringify(res.body)}`);
          created.set(p.n, res.body.post._id);
        }
      }),
    );
    expect(created.size).toBe(planned.length);
    // Every platform answers in 200-600 ms, as the internet would: the burst takes a while to publish,
    // and each process has calls in flight when one is killed.
    for (const platform of PLATFORMS)
      await sandboxCall(h.sandbox, 'POST', `/sandbox/${platform}/_config`, { latencyMs: [200, 600] });

    // SIGKILL, once the first posts went out, the process that holds the most publishing work then.
    const db = h.env.ctx.db.kysely;
    const workerIds = procs.map((p) => /"workerId":"([^"]+)"[^\n]*herald worker started/.exec(p.stdout())?.[1]);
    expect(workerIds.every(Boolean)).toBe(true);
    let victim = -1;
    let held = 0;
    // The moment: as soon as a process holds two jobs or more once posts went out (after 10 s, one).
    const firstOut = { at: 0 };
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error('no process held publishing work after the first posts went out');
      if (!firstOut.at && (await onPlatforms()).size > 0) firstOut.at = Date.now();
      if (firstOut.at) {
        const locks = await db
          .selectFrom('job')
          .select(['locked_by'])
          .where('task', 'in', ['post.publish', 'post.check-processing'])
          .where('locked_until', '>', new Date().toISOString())
          .execute();
        const counts = workerIds.map((id) => locks.filter((l) => l.locked_by === id).length);
        held = Math.max(...counts);
        victim = counts.indexOf(held);
        if (held >= 2 || (held >= 1 && Date.now() - firstOut.at > 10_000)) break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    procs[victim].child.kill('SIGKILL');
    await procs[victim].exited;

    // Everything settles: no target in flight and no publishing job left.
    const unsettled = async () => ({
      targets: await db
        .selectFrom('post_target')
        .select(['target_id', 'platform', 'status', 'updated_at'])
        .where('tenant_id', '=', userId)
        .where('status', 'in', ['pending', 'publishing', 'processing'])
        .execute(),
      jobs: await db
        .selectFrom('job')
        .select(['task'])
        .where('task', 'in', ['post.publish', 'post.check-processing'])
        .execute(),
    });
    await waitUntil(
      async () => {
        const u = await unsettled();
        return u.targets.length === 0 && u.jobs.length === 0;
      },
      45_000,
      'every target to settle',
      // On failure: what the unsettled targets went through (their log rows) and the processes' warnings.
      async () => {
        const u = await unsettled();
        const logs = await db
          .selectFrom('publish_log')
          .selectAll()
          .where('target_id', 'in', u.targets.map((t) => t.target_id).concat(['-']))
          .execute()
          .catch((e) => String(e));
        const lines = procs.map((p) =>
          p
            .stdout()
            .split('\n')
            .filter((l) => /lease|"level":[45]0/.test(l))
            .slice(-10),
        );
        return { ...u, logs, lines };
      },
    );

    const targets = await db
      .selectFrom('post_target')
      .select(['post_id', 'platform', 'status', 'platform_post_id', 'error_message'])
      .where('tenant_id', '=', userId)
      .execute();
    expect(targets).toHaveLength(planned.length);
    const byPost = new Map(targets.map((t) => [t.post_id, t]));
    const onPlatform = await onPlatforms();
    const listedUnknown = await call(c, 'GET', '/v1/posts?status=unknown&limit=100');
    expect(listedUnknown.status).toBe(200);
    const unknownIds = new Set((listedUnknown.body.posts as { _id: string }[]).map((p) => p._id));

    const problems: string[] = [];
    const outcomes = { published: 0, unknown: 0 };
    for (const p of planned) {
      const postId = created.get(p.n)!;
      const t = byPost.get(postId)!;
      const copies = onPlatform.get(String(p.n)) ?? 0;
      const what = `#${p.n} ${p.platform} ${p.kind}`;
      if (copies > 1) problems.push(`${what}: ${copies} copies on the platform`);
      if (t.status === 'published') {
        outcomes.published++;
        if (copies !== 1) problems.push(`${what}: published, but ${copies} copies on the platform`);
        if (!t.platform_post_id) problems.push(`${what}: published without a platform id`);
      } else if (t.status === 'unknown') {
        outcomes.unknown++;
        if (!NO_LOOKUP.has(p.platform)) problems.push(`${what}: unknown on a platform Herald can look posts up on`);
        if (!unknownIds.has(postId)) problems.push(`${what}: unknown but not listed by ?status=unknown`);
        if (!t.error_message) problems.push(`${what}: unknown without a reason`);
      } else {
        problems.push(`${what}: ${t.status} (${t.error_message})`);
      }
    }
    // Every post that is not on its platform is accounted for as unknown; nothing else is there.
    expect(problems).toEqual([]);
    expect([...onPlatform.keys()].every((n) => created.has(Number(n)))).toBe(true);
    expect(outcomes.published + outcomes.unknown).toBe(planned.length);
    // The cluster served the burst from all three processes, and the survivors finished it.
    for (const p of procs) expect(lb.served.get(p.url) ?? 0, p.url).toBeGreaterThan(0);
    expect(held).toBeGreaterThan(0);
    console.log(
      `scale-out crash: ${planned.length} media posts on ${PLATFORMS.length} platforms, one of 3 processes killed holding ${held} jobs; ` +
        `${outcomes.published} published, ${outcomes.unknown} unknown, 0 duplicates`,
    );
  }, 120_000);
});
