import { Type, type Static } from '@sinclair/typebox';
import { PLATFORMS } from '../../../platforms/catalogue.js';
import { DateTime, PathId } from '../../schemas/common.js';

export const PlatformName = Type.Union(PLATFORMS.map((p) => Type.Literal(p)));
const OpenObject = Type.Object({}, { additionalProperties: true });

export const MediaItem = Type.Object({
  type: Type.Optional(Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('gif'), Type.Literal('document')])),
  url: Type.String({ minLength: 1, maxLength: 4096 }),
  title: Type.Optional(Type.String({ maxLength: 1000 })),
  filename: Type.Optional(Type.String({ maxLength: 1000 })),
  size: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  mimeType: Type.Optional(Type.String({ maxLength: 200 })),
  thumbnail: Type.Optional(Type.String({ maxLength: 4096 })),
  instagramThumbnail: Type.Optional(Type.String({ maxLength: 4096 })),
  altText: Type.Optional(Type.String({ maxLength: 5000 })),
});

const ThreadItem = Type.Object({
  content: Type.Optional(Type.String({ maxLength: 100_000 })),
  mediaItems: Type.Optional(Type.Array(MediaItem, { maxItems: 50 })),
});

export const TargetBody = Type.Object({
  platform: PlatformName,
  accountId: Type.String({ minLength: 1, maxLength: 64 }),
  customContent: Type.Optional(Type.String({ maxLength: 100_000 })),
  customMedia: Type.Optional(Type.Array(MediaItem, { maxItems: 50 })),
  scheduledFor: Type.Optional(Type.String({ maxLength: 64 })),
  platformSpecificData: Type.Optional(OpenObject),
  threadItems: Type.Optional(Type.Array(ThreadItem, { maxItems: 100 })),
  firstComment: Type.Optional(Type.String({ maxLength: 10_000 })),
});

const StringList = Type.Array(Type.String({ maxLength: 500 }), { maxItems: 100 });

/** The create body (reference §4.5); every field is optional on update. */
export const PostFields = {
  title: Type.Optional(Type.String({ maxLength: 1000 })),
  content: Type.Optional(Type.String({ maxLength: 100_000 })),
  mediaItems: Type.Optional(Type.Array(MediaItem, { maxItems: 50 })),
  platforms: Type.Optional(Type.Array(TargetBody, { maxItems: 50 })),
  scheduledFor: Type.Optional(Type.String({ maxLength: 64, description: 'UTC with Z/offset, or local time in `timezone`' })),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA zone name; default UTC' })),
  publishNow: Type.Optional(Type.Boolean()),
  isDraft: Type.Optional(Type.Boolean()),
  tags: Type.Optional(StringList),
  hashtags: Type.Optional(StringList),
  mentions: Type.Optional(StringList),
  visibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private'), Type.Literal('unlisted')])),
  metadata: Type.Optional(OpenObject),
  crosspostingEnabled: Type.Optional(Type.Boolean()),
  tiktokSettings: Type.Optional(OpenObject),
  recycling: Type.Optional(OpenObject),
  queuedFromProfile: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  queueId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
};
export const PostBody = Type.Object(PostFields);
export type PostBody = Static<typeof PostBody>;

const AccountRef = Type.Object({
  _id: Type.String(),
  platform: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  isActive: Type.Boolean(),
});

const Target = Type.Object({
  _id: Type.String(),
  platform: Type.String(),
  accountId: AccountRef,
  customContent: Type.Optional(Type.String()),
  customMedia: Type.Optional(Type.Array(OpenObject)),
  scheduledFor: Type.Optional(DateTime),
  platformSpecificData: OpenObject,
  status: Type.String(),
  platformPostId: Type.Optional(Type.String()),
  platformPostUrl: Type.Optional(Type.String()),
  publishedAt: Type.Optional(DateTime),
  errorMessage: Type.Optional(Type.String()),
  errorCategory: Type.Optional(Type.String()),
  errorSource: Type.Optional(Type.String()),
  /** Herald: what became of the first comment of a published target (best effort, see the README). */
  firstCommentResult: Type.Optional(
    Type.Object({ status: Type.String({ description: 'posted | failed' }), commentId: Type.Optional(Type.String()), errorMessage: Type.Optional(Type.String()) }),
  ),
});

export const Post = Type.Object({
  _id: Type.String(),
  userId: Type.String(),
  title: Type.Optional(Type.String()),
  content: Type.String(),
  mediaItems: Type.Array(OpenObject),
  platforms: Type.Array(Target),
  scheduledFor: Type.Optional(DateTime),
  timezone: Type.String(),
  status: Type.String(),
  publishedAt: Type.Optional(DateTime),
  tags: Type.Array(Type.String()),
  hashtags: Type.Array(Type.String()),
  mentions: Type.Array(Type.String()),
  visibility: Type.Optional(Type.String()),
  metadata: OpenObject,
  crosspostingEnabled: Type.Optional(Type.Boolean()),
  tiktokSettings: Type.Optional(OpenObject),
  recycling: Type.Optional(OpenObject),
  queuedFromProfile: Type.Optional(Type.String()),
  queueId: Type.Optional(Type.String()),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const PostParams = Type.Object({ postId: PathId });
export const MessageAndPost = Type.Object({ message: Type.String(), post: Post });
