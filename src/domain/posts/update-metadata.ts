import type { AppContext } from '../../context.js';
import { AppError, invalid, invalidFields } from '../../errors.js';
import { descriptorOf } from '../../platforms/catalogue.js';
import { createPlatformIO } from '../../platforms/io.js';
import { PlatformError, type MetadataFields, type Platform } from '../../platforms/types.js';
import { findAccount, type AccountRow } from '../../store/accounts.js';
import { updatePost, updateTarget } from '../../store/posts.js';
import { getVisibleAccount } from '../accounts/manage.js';
import { accountCredentials } from '../accounts/save-account.js';
import type { Principal } from '../principal.js';
import { loadPost } from './views.js';

export interface UpdateMetadataInput extends MetadataFields {
  platform: Platform;
  /** Direct mode (postId `_`): the platform's video id and the Herald account that owns it. */
  videoId?: string;
  accountId?: string;
  playlistId?: string;
}

const FIELDS = [
  'title',
  'description',
  'tags',
  'categoryId',
  'privacyStatus',
  'thumbnailUrl',
  'madeForKids',
  'containsSyntheticMedia',
] as const;

/**
 * `POST /v1/posts/{postId}/update-metadata`: changes a published video's title, description, tags, category,
 * privacy, audience flags or thumbnail through the platform's own update call, without uploading it again.
 * Post mode: the post's published copy on the platform; direct mode (`postId` = `_`): any video of one of
 * the caller's accounts, by `videoId`. A thumbnail URL is fetched through the outbound guard.
 */
export async function updatePostMetadata(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  input: UpdateMetadataInput,
): Promise<{ updatedFields: string[]; videoId?: string }> {
  const name = descriptorOf(input.platform)?.name ?? input.platform;
  const adapter = ctx.platforms.get(input.platform);
  if (!adapter?.updateMetadata)
    throw invalid('PLATFORM_LIMITATION', `Metadata updates are not available on ${name}`, { platform: input.platform });
  if (input.playlistId !== undefined)
    throw invalidFields('Adding the video to a playlist is not supported by this server yet', {
      playlistId: ['is not supported yet'],
    });
  const fields: MetadataFields = Object.fromEntries(
    FIELDS.filter((f) => input[f] !== undefined).map((f) => [f, input[f]]),
  );
  if (Object.keys(fields).length === 0)
    throw invalidFields('At least one field to update is required', { body: [`set one of ${FIELDS.join(', ')}`] });

  const direct = postId === '_';
  let account: AccountRow;
  let videoId: string;
  let targetId: string | null = null;
  if (direct) {
    if (!input.videoId || !input.accountId)
      throw invalidFields('videoId and accountId are required when postId is _', {
        ...(input.videoId ? {} : { videoId: ['is required'] }),
        ...(input.accountId ? {} : { accountId: ['is required'] }),
      });
    account = await getVisibleAccount(ctx, caller, input.accountId);
    if (account.platform !== input.platform)
      throw invalid('account_platform_mismatch', `The account is not a ${name} account`);
    videoId = input.videoId;
  } else {
    const { targets } = await loadPost(ctx.db.kysely, caller, postId);
    const target = targets.find((t) => t.platform === input.platform && t.status === 'published' && t.platform_post_id);
    if (!target) throw invalid('not_published', `The post is not published on ${name}`);
    const row = await findAccount(ctx.db.kysely, caller.tenantId, target.account_id);
    if (!row) throw invalid('account_not_found', `The ${name} account of this post is gone`);
    account = row;
    videoId = target.platform_post_id!;
    targetId = target.target_id;
  }

  const io = createPlatformIO({
    now: () => ctx.clock.now(),
    outbound: { allowPrivate: ctx.config.outboundAllowPrivate },
  });
  let updatedFields: string[];
  try {
    updatedFields = await adapter.updateMetadata({ account: accountCredentials(ctx, account), videoId, fields }, io);
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    if (error.kind === 'rejected')
      throw invalid('platform_rejected', `${name}: ${error.message}`, { platform: input.platform });
    throw new AppError(
      'upstream',
      'platform_error',
      `${name}: ${error.message}`,
      { platform: input.platform, kind: error.kind },
      { cause: error },
    );
  }
  if (targetId !== null && (fields.title !== undefined || fields.description !== undefined)) {
    const iso = ctx.clock.now().toISOString();
    await ctx.db.transaction(async (tx) => {
      if (fields.description !== undefined)
        await updateTarget(tx, targetId, { custom_content: fields.description, updated_at: iso });
      if (fields.title !== undefined)
        await updatePost(tx, caller.tenantId, postId, { title: fields.title, updated_at: iso });
    });
  }
  return direct ? { updatedFields, videoId } : { updatedFields };
}
