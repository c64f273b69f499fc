import type { AppContext } from '../../src/context.js';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { armPublishJobs, PUBLISH_TASK, publishJobKey } from '../../src/domain/publishing/schedule.js';
import { unattempted } from '../../src/domain/posts/targets.js';
import { sha256Hex } from '../../src/lib/crypto.js';
import { newId } from '../../src/lib/ids.js';
import type { Platform } from '../../src/platforms/types.js';
import type { AccountRow } from '../../src/store/accounts.js';
import { enqueueJobs } from '../../src/store/jobs.js';
import type { PostTable, PostTargetTable } from '../../src/store/schema.js';

/*
 * Posts as the posts API stores them (rows + armed publish jobs), for engine tests that must not depend
 * on the posts routes. Accounts go through the account service.
 */

export async function seedProfile(ctx: AppContext, tenantId: string, name = 'Main'): Promise<string> {
  const now = ctx.clock.now();
  const profileId = newId(now);
  await ctx.db.kysely
    .insertInto('profile')
    .values({
      profile_id: profileId,
      tenant_id: tenantId,
      name,
      description: null,
      color: '#ffeda0',
      is_default: 0,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
  return profileId;
}

export async function seedAccount(
  ctx: AppContext,
  tenantId: string,
  profileId: string,
  platform: Platform,
  username = `${platform}-user`,
): Promise<AccountRow> {
  const { account } = await saveConnectedAccount(ctx, {
    tenantId,
    profileId,
    platform,
    profile: { platformUserId: `${platform}-${username}`, username },
    tokens: { accessToken: `at-${username}`, refreshToken: `rt-${username}`, expiresAt: null },
  });
  return account;
}

interface SeedTarget {
  account: AccountRow;
  customContent?: string;
  platformSpecificData?: Record<string, unknown>;
}

export interface SeedPost {
  tenantId: string;
  content: string;
  targets: SeedTarget[];
  scheduledFor: Date;
  mediaItems?: { type: string; url: string }[];
}

function rows(ctx: AppContext, p: SeedPost): { post: PostTable; targets: PostTargetTable[] } {
  const now = ctx.clock.now();
  const iso = now.toISOString();
  const postId = newId(now);
  const post: PostTable = {
    post_id: postId,
    tenant_id: p.tenantId,
    created_by: p.tenantId,
    title: null,
    content: p.content,
    media_items: JSON.stringify(p.mediaItems ?? []),
    status: 'scheduled',
    scheduled_for: p.scheduledFor.toISOString(),
    timezone: 'UTC',
    published_at: null,
    tags: '[]',
    hashtags: '[]',
    mentions: '[]',
    visibility: null,
    metadata: '{}',
    options: '{}',
    queued_from_profile: null,
    queue_id: null,
    created_at: iso,
    updated_at: iso,
  };
  const targets = p.targets.map((t, position) => ({
    target_id: newId(now),
    post_id: postId,
    tenant_id: p.tenantId,
    account_id: t.account.account_id,
    profile_id: t.account.profile_id,
    platform: t.account.platform,
    position,
    custom_content: t.customContent ?? null,
    custom_media: null,
    platform_specific_data: JSON.stringify(t.platformSpecificData ?? {}),
    scheduled_for: null,
    status: 'pending',
    attempts: 0,
    content_hash: sha256Hex(t.customContent ?? p.content),
    ...unattempted(iso),
  }));
  return { post, targets };
}

/** One scheduled post with its targets and their publish jobs, in one transaction. */
export async function seedPost(ctx: AppContext, p: SeedPost): Promise<{ postId: string; targetIds: string[] }> {
  const { post, targets } = rows(ctx, p);
  await ctx.db.transaction(async (tx) => {
    await tx.insertInto('post').values(post).execute();
    await tx.insertInto('post_target').values(targets).execute();
    await armPublishJobs(
      tx,
      targets.map((t) => t.target_id),
      p.scheduledFor,
      ctx.clock.now(),
    );
  });
  return { postId: post.post_id, targetIds: targets.map((t) => t.target_id) };
}

/** Many posts in big batches (process tests and benchmarks). */
export async function seedPosts(ctx: AppContext, posts: SeedPost[]): Promise<string[]> {
  const targetIds: string[] = [];
  for (let i = 0; i < posts.length; i += 200) {
    const batch = posts.slice(i, i + 200).map((p) => ({ ...rows(ctx, p), at: p.scheduledFor }));
    await ctx.db.transaction(async (tx) => {
      await tx
        .insertInto('post')
        .values(batch.map((b) => b.post))
        .execute();
      const targets = batch.flatMap((b) => b.targets);
      for (let j = 0; j < targets.length; j += 200)
        await tx
          .insertInto('post_target')
          .values(targets.slice(j, j + 200))
          .execute();
      const now = ctx.clock.now();
      await enqueueJobs(
        tx,
        batch.flatMap((b) =>
          b.targets.map((t) => ({
            task: PUBLISH_TASK,
            key: publishJobKey(t.target_id),
            payload: { targetId: t.target_id },
            runAt: b.at,
            maxAttempts: 25,
          })),
        ),
        now,
      );
      targetIds.push(...targets.map((t) => t.target_id));
    });
  }
  return targetIds;
}
