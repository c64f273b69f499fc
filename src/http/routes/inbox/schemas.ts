import { Type } from '@sinclair/typebox';
import { DateTime, Nullable } from '../../schemas/common.js';

/* Shapes of the inbox API (reference §11.2; OpenAPI tags Messages, Comments, Reviews). */

export const SortOrder = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);
/** Platform ids are strings here: the catalogue says which exist, and a filter on another matches nothing. */
export const PlatformFilter = Type.String({ minLength: 1, maxLength: 32 });
export const AccountId = Type.String({ minLength: 1, maxLength: 64 });
export const Cursor = Type.String({ minLength: 1, maxLength: 512 });
/** A platform's id for an item (conversation, message, post, comment, review): opaque text. */
export const PlatformItemId = Type.String({ minLength: 1, maxLength: 512 });

export const ListMeta = Type.Object({
  accountsQueried: Type.Integer(),
  accountsFailed: Type.Integer(),
  failedAccounts: Type.Array(
    Type.Object({
      accountId: Type.String(),
      accountUsername: Nullable(Type.String()),
      platform: Type.String(),
      error: Type.String(),
      code: Type.Optional(Nullable(Type.String())),
    }),
  ),
  lastUpdated: DateTime,
});
export const Pagination = Type.Object({ hasMore: Type.Boolean(), nextCursor: Nullable(Type.String()) });

export const Conversation = Type.Object({
  id: Type.String(),
  platform: Type.String(),
  accountId: Type.String(),
  accountUsername: Type.String(),
  participantId: Type.String(),
  participantName: Type.String(),
  participantPicture: Nullable(Type.String()),
  lastMessage: Type.String(),
  updatedTime: DateTime,
  status: Type.String(),
  unreadCount: Nullable(Type.Integer()),
  url: Nullable(Type.String()),
  instagramProfile: Nullable(Type.Object({}, { additionalProperties: true })),
});

export const ConversationDetail = Type.Object({
  id: Type.String(),
  accountId: Type.String(),
  accountUsername: Type.String(),
  platform: Type.String(),
  status: Type.String(),
  participantName: Type.String(),
  participantId: Type.String(),
  lastMessage: Type.String(),
  lastMessageAt: DateTime,
  updatedTime: DateTime,
  participants: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  instagramProfile: Nullable(Type.Object({}, { additionalProperties: true })),
});

const Attachment = Type.Object({
  id: Type.Optional(Nullable(Type.String())),
  type: Type.String(),
  url: Type.String(),
  filename: Type.Optional(Nullable(Type.String())),
  previewUrl: Type.Optional(Nullable(Type.String())),
});

export const Message = Type.Object({
  id: Type.String(),
  conversationId: Type.String(),
  accountId: Type.String(),
  platform: Type.String(),
  message: Type.String(),
  senderId: Type.String(),
  senderName: Nullable(Type.String()),
  direction: Type.String(),
  createdAt: DateTime,
  attachments: Type.Array(Attachment),
  subject: Nullable(Type.String()),
  storyReply: Nullable(Type.Boolean()),
  isStoryMention: Nullable(Type.Boolean()),
  /** Present when the message has platform extras to show: `referral` (the click that led to it). */
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

export const CommentedPost = Type.Object({
  id: Type.String(),
  platform: Type.String(),
  accountId: Type.String(),
  accountUsername: Type.String(),
  content: Type.String(),
  picture: Nullable(Type.String()),
  permalink: Nullable(Type.String()),
  createdTime: DateTime,
  commentCount: Type.Integer(),
  likeCount: Type.Integer(),
  cid: Nullable(Type.String()),
  subreddit: Nullable(Type.String()),
});

const CommentFields = {
  id: Type.String(),
  message: Type.String(),
  createdTime: DateTime,
  from: Type.Object({
    id: Type.String(),
    name: Type.String(),
    username: Type.String(),
    picture: Nullable(Type.String()),
    isOwner: Type.Boolean(),
  }),
  likeCount: Type.Integer(),
  replyCount: Type.Integer(),
  platform: Type.String(),
  url: Nullable(Type.String()),
  canReply: Type.Boolean(),
  canDelete: Type.Boolean(),
  canHide: Type.Boolean(),
  canLike: Type.Boolean(),
  isHidden: Type.Boolean(),
  isLiked: Type.Boolean(),
  likeUri: Nullable(Type.String()),
  cid: Nullable(Type.String()),
  parentId: Nullable(Type.String()),
  rootUri: Nullable(Type.String()),
  rootCid: Nullable(Type.String()),
};
export const Comment = Type.Object({
  ...CommentFields,
  replies: Type.Array(Type.Object({ ...CommentFields, replies: Type.Array(Type.Unknown()) })),
});

export const Review = Type.Object({
  id: Type.String(),
  platform: Type.String(),
  accountId: Type.String(),
  accountUsername: Type.String(),
  reviewer: Type.Object({ id: Nullable(Type.String()), name: Type.String(), profileImage: Nullable(Type.String()) }),
  rating: Type.Integer(),
  text: Type.String(),
  created: DateTime,
  hasReply: Type.Boolean(),
  reply: Nullable(Type.Object({ id: Type.String(), text: Type.String(), created: DateTime })),
  reviewUrl: Nullable(Type.String()),
});

export const ConversationParams = Type.Object({ conversationId: PlatformItemId });
export const PostParams = Type.Object({ postId: PlatformItemId });
export const CommentParams = Type.Object({ postId: PlatformItemId, commentId: PlatformItemId });
export const ReviewParams = Type.Object({ reviewId: PlatformItemId });
export const AccountQuery = Type.Object({ accountId: AccountId });
export const AccountBody = Type.Object({ accountId: AccountId });
