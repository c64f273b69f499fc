import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PLATFORMS } from '../../../platforms/catalogue.js';
import { DateTime, PathId } from '../../schemas/common.js';

export const PlatformName = Type.Union(PLATFORMS.map((p) => Type.Literal(p)));
const OpenObject = Type.Object({}, { additionalProperties: true });

export const MediaItem = Type.Object({
  type: Type.Optional(
    Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('gif'), Type.Literal('document')]),
  ),
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

const TargetBody = Type.Object({
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

const GapFreq = Type.Union([Type.Literal('week'), Type.Literal('month')]);
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** Reference §4.5 RecyclingConfig: on create, and on PUT (given fields change; null clears a date or count). */
const RecyclingConfig = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'default true; false turns recycling off' })),
    gap: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 520, description: 'interval units between copies; required when enabling' }),
    ),
    gapFreq: Type.Optional(GapFreq),
    startDate: Type.Optional(
      Nullable(Type.String({ maxLength: 64, description: "date-time; default the post's scheduledFor" })),
    ),
    expireCount: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 10_000, description: 'stop after this many copies' })),
    ),
    expireDate: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'date-time; no copy after it' }))),
    contentVariations: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100_000 }), {
        maxItems: 20,
        description: 'used in turn by the copies; 2 to 20, or [] to clear',
      }),
    ),
  },
  { description: 'At most 10 active recycling posts per account; some platforms refuse it (400 on recycling)' },
);

/** Reference §4.5 RecyclingState. */
const RecyclingState = Type.Object({
  enabled: Type.Boolean(),
  gap: Type.Integer(),
  gapFreq: GapFreq,
  startDate: Type.Optional(DateTime),
  expireCount: Type.Optional(Type.Integer()),
  expireDate: Type.Optional(DateTime),
  contentVariations: Type.Array(Type.String()),
  contentVariationIndex: Type.Integer(),
  recycleCount: Type.Integer(),
  nextRecycleAt: Type.Optional(DateTime),
  lastRecycledAt: Type.Optional(DateTime),
});

/** The create body (reference §4.5); every field is optional on update. */
const PostFields = {
  title: Type.Optional(Type.String({ maxLength: 1000 })),
  content: Type.Optional(Type.String({ maxLength: 100_000 })),
  mediaItems: Type.Optional(Type.Array(MediaItem, { maxItems: 50 })),
  platforms: Type.Optional(Type.Array(TargetBody, { maxItems: 50 })),
  scheduledFor: Type.Optional(
    Type.String({ maxLength: 64, description: 'UTC with Z/offset, or local time in `timezone`' }),
  ),
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
  recycling: Type.Optional(RecyclingConfig),
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
  /** Herald: what became of the first comment of a published target (best effort, see docs/platforms/linkedin.md). */
  firstCommentResult: Type.Optional(
    Type.Object({
      status: Type.String({ description: 'posted | failed' }),
      commentId: Type.Optional(Type.String()),
      errorMessage: Type.Optional(Type.String()),
    }),
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
  recycling: Type.Optional(RecyclingState),
  recycledFromPostId: Type.Optional(Type.String({ description: 'set on a copy made by recycling' })),
  queuedFromProfile: Type.Optional(Type.String()),
  queueId: Type.Optional(Type.String()),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const PostParams = Type.Object({ postId: PathId });
export const MessageAndPost = Type.Object({ message: Type.String(), post: Post });

/** A post status, or `unknown`: the posts with a target whose outcome is unknown (to settle by hand). */
export const StatusFilter = Type.Union(
  ['draft', 'scheduled', 'publishing', 'published', 'failed', 'partial', 'cancelled', 'unknown'].map((s) =>
    Type.Literal(s),
  ),
  {
    description:
      'A post status, or unknown: posts with a target whose outcome is unknown (see POST /v1/posts/{postId}/targets/{target}/resolve)',
  },
);
