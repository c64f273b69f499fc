import type { InboxAttachment, InboxCapability } from '../../platforms/types.js';
import type { CommentRow, ListedInboxPost } from '../../store/inbox/comments.js';
import type { ConversationRow, ListedConversation, MessageRow } from '../../store/inbox/conversations.js';
import type { ListedMention } from '../../store/inbox/mentions.js';
import type { ListedReview } from '../../store/inbox/reviews.js';
import { messageReferral } from './inbox-events.js';

/* The inbox API's shapes (reference §11.2; OpenAPI Messages, Comments and Reviews). */

const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function presentConversation(row: ListedConversation) {
  return {
    id: row.platform_conversation_id,
    platform: row.platform,
    accountId: row.account_id,
    accountUsername: row.account_username,
    participantId: row.participant_id ?? '',
    participantName: row.participant_name ?? row.participant_username ?? '',
    participantPicture: row.participant_picture,
    lastMessage: row.last_message ?? '',
    updatedTime: row.last_message_at,
    status: row.status,
    unreadCount: row.unread_count,
    url: row.url,
    instagramProfile: null,
  };
}

export function presentConversationDetail(row: ListedConversation) {
  return {
    id: row.platform_conversation_id,
    accountId: row.account_id,
    accountUsername: row.account_username,
    platform: row.platform,
    status: row.status,
    participantName: row.participant_name ?? row.participant_username ?? '',
    participantId: row.participant_id ?? '',
    lastMessage: row.last_message ?? '',
    lastMessageAt: row.last_message_at,
    updatedTime: row.updated_at,
    participants: row.participant_id
      ? [{ id: row.participant_id, name: row.participant_name ?? row.participant_username ?? '' }]
      : [],
    instagramProfile: null,
  };
}

export function presentMessage(row: MessageRow, conversation: ConversationRow) {
  // The click attribution of a first message, as `message.received` showed it; other metadata stays inside.
  const referral = messageReferral(row);
  return {
    id: row.platform_message_id,
    conversationId: conversation.platform_conversation_id,
    accountId: row.account_id,
    platform: conversation.platform,
    message: row.text ?? '',
    senderId: row.sender_id ?? '',
    senderName: row.sender_name,
    direction: row.direction,
    createdAt: row.sent_at,
    attachments: JSON.parse(row.attachments) as InboxAttachment[],
    subject: row.subject,
    storyReply: null,
    isStoryMention: null,
    ...(referral ? { metadata: { referral } } : {}),
  };
}

export function presentInboxPost(row: ListedInboxPost) {
  const meta = json(row.metadata);
  return {
    id: row.platform_post_id,
    platform: row.platform,
    accountId: row.account_id,
    accountUsername: row.account_username,
    content: row.content ?? '',
    picture: row.picture,
    permalink: row.permalink,
    createdTime: row.posted_at ?? row.last_comment_at,
    commentCount: row.comment_count,
    likeCount: row.like_count,
    cid: str(meta.cid),
    subreddit: str(meta.subreddit),
  };
}

/** One comment with the stored replies to it (one level: a reply's own replies are listed by asking for it). */
export function presentComment(
  row: CommentRow,
  platform: string,
  inbox: InboxCapability | null,
  replies: CommentRow[] = [],
) {
  return {
    ...commentFields(row, platform, inbox),
    replyCount: replies.length,
    replies: replies.map((r) => ({ ...commentFields(r, platform, inbox), replies: [] as unknown[] })),
  };
}

function commentFields(row: CommentRow, platform: string, inbox: InboxCapability | null) {
  const meta = json(row.metadata);
  const can = inbox?.comments;
  const own = row.direction === 'outgoing';
  return {
    id: row.platform_comment_id,
    message: row.text,
    createdTime: row.commented_at,
    from: {
      id: row.author_id ?? '',
      name: row.author_name ?? row.author_username ?? '',
      username: row.author_username ?? '',
      picture: row.author_picture,
      isOwner: own,
    },
    likeCount: row.like_count,
    replyCount: 0,
    platform,
    url: row.url,
    canReply: Boolean(can),
    canDelete: Boolean(can?.delete),
    canHide: Boolean(can?.hide) && !own,
    canLike: Boolean(can?.like),
    isHidden: row.is_hidden === 1,
    isLiked: row.is_liked === 1,
    likeUri: row.like_uri,
    cid: str(meta.cid),
    parentId: row.parent_platform_id,
    rootUri: str(meta.rootUri),
    rootCid: str(meta.rootCid),
  };
}

export function presentReview(row: ListedReview) {
  return {
    id: row.platform_review_id,
    platform: row.platform,
    accountId: row.account_id,
    accountUsername: row.account_username,
    reviewer: { id: row.reviewer_id, name: row.reviewer_name ?? '', profileImage: row.reviewer_picture },
    rating: row.rating ?? 0,
    text: row.text ?? '',
    created: row.reviewed_at,
    hasReply: row.reply_id !== null,
    reply: row.reply_id
      ? { id: row.reply_id, text: row.reply_text ?? '', created: row.reply_at ?? row.reviewed_at }
      : null,
    reviewUrl: row.url,
  };
}

/**
 * One mention (GET /v1/inbox/mentions). `authorUrn` and `organizationalEntity` are LinkedIn's words in
 * the client's shape, kept by the LinkedIn poll with the mention: `authorUrn` is null elsewhere (the
 * author's id is `authorId`) and `organizationalEntity` absent. `mediaId` and `commentId` are what
 * POST /v1/inbox/mentions/reply takes to answer it.
 */
export function presentMention(row: ListedMention) {
  const meta = json(row.metadata);
  const organizationalEntity = str(meta.organizationalEntity);
  return {
    id: row.mention_id,
    platform: row.platform,
    accountId: row.account_id,
    accountUsername: row.account_username,
    content: row.text,
    permalink: row.url,
    authorUrn: str(meta.authorUrn),
    authorId: row.author_id,
    authorName: row.author_name,
    authorUsername: row.author_username,
    authorPicture: row.author_picture,
    mediaId: row.media_id,
    commentId: row.comment_id,
    platformMentionId: row.platform_mention_id,
    ...(organizationalEntity ? { organizationalEntity } : {}),
    publishedAt: row.published_at,
    createdAt: row.created_at,
  };
}
