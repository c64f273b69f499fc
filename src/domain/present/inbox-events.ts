import type { AccountRow } from '../../store/accounts.js';
import type { CommentRow, InboxPostRow } from '../../store/inbox/comments.js';
import type { ConversationRow, MessageRow } from '../../store/inbox/conversations.js';
import type { ReviewRow } from '../../store/inbox/reviews.js';
import type { InboxPerson } from '../../platforms/types.js';

/*
 * The bodies of the inbox events: `message.received` and `comment.received` (OpenAPI WebhookPayloadMessage
 * and WebhookPayloadComment), `conversation.started`, `conversation.control_changed`, `message.sent`,
 * `message.edited`, `message.deleted`, `message.delivered`, `message.read`, `reaction.received`,
 * `referral.received`, `review.new` and `review.updated`. Ids are the ones the inbox API takes: the platform's, with the account.
 */

/** InboxWebhookConversation: the conversation context of every message event. */
function webhookConversation(conversation: ConversationRow) {
  return {
    id: conversation.platform_conversation_id,
    platformConversationId: conversation.platform_conversation_id,
    participantId: conversation.participant_id,
    participantName: conversation.participant_name,
    participantUsername: conversation.participant_username,
    participantPicture: conversation.participant_picture,
    status: conversation.status,
  };
}

/** InboxWebhookAccount. */
function webhookAccount(account: AccountRow) {
  return {
    id: account.account_id,
    accountId: account.account_id,
    profileId: account.profile_id,
    platform: account.platform,
    username: account.username,
    displayName: account.display_name ?? account.username,
  };
}

/** InboxWebhookMessage from a stored message; the sender of an outgoing one is the account. */
function webhookMessage(account: AccountRow, conversation: ConversationRow, message: MessageRow) {
  const outgoing = message.direction === 'outgoing';
  return {
    id: message.platform_message_id,
    conversationId: conversation.platform_conversation_id,
    platform: account.platform,
    platformMessageId: message.platform_message_id,
    direction: message.direction,
    text: message.text,
    attachments: JSON.parse(message.attachments),
    sender: outgoing
      ? { id: account.account_id, name: account.display_name ?? account.username, username: account.username }
      : { id: message.sender_id ?? '', name: message.sender_name },
    sentAt: message.sent_at,
  };
}

/**
 * The click attribution a first message carries (Meta's referral, kept in the message's metadata by the
 * adapter): `metadata.referral` of `message.received`, and of the message in the inbox's listing.
 */
export function messageReferral(message: MessageRow): Record<string, unknown> | null {
  const referral = (JSON.parse(message.metadata) as { referral?: unknown }).referral;
  return referral && typeof referral === 'object' ? (referral as Record<string, unknown>) : null;
}

export function messageEventData(
  account: AccountRow,
  conversation: ConversationRow,
  message: MessageRow,
  sender: InboxPerson,
) {
  const referral = messageReferral(message);
  return {
    message: {
      id: message.platform_message_id,
      conversationId: conversation.platform_conversation_id,
      platform: account.platform,
      platformMessageId: message.platform_message_id,
      direction: message.direction,
      text: message.text,
      attachments: JSON.parse(message.attachments),
      sender: {
        id: sender.id,
        name: sender.name ?? null,
        username: sender.username ?? null,
        picture: sender.picture ?? null,
      },
      sentAt: message.sent_at,
      isRead: false,
    },
    conversation: webhookConversation(conversation),
    account: webhookAccount(account),
    ...(referral ? { metadata: { referral } } : {}),
  };
}

export function commentEventData(account: AccountRow, post: InboxPostRow, comment: CommentRow) {
  return {
    comment: {
      id: comment.platform_comment_id,
      postId: post.platform_post_id,
      platformPostId: post.platform_post_id,
      platform: account.platform,
      text: comment.text,
      author: {
        id: comment.author_id,
        username: comment.author_username,
        name: comment.author_name,
        picture: comment.author_picture,
      },
      createdAt: comment.commented_at,
      isReply: comment.parent_platform_id !== null,
      parentCommentId: comment.parent_platform_id,
    },
    post: { id: post.platform_post_id, platformPostId: post.platform_post_id },
    account: { id: account.account_id, platform: account.platform, username: account.username },
  };
}

/** InboxWebhookConversationDetail: the conversation of the lifecycle events. */
function conversationDetail(account: AccountRow, conversation: ConversationRow) {
  return {
    id: conversation.platform_conversation_id,
    platform: account.platform,
    platformConversationId: conversation.platform_conversation_id,
    participantId: conversation.participant_id,
    participantName: conversation.participant_name ?? conversation.participant_username ?? '',
    participantUsername: conversation.participant_username,
    participantPicture: conversation.participant_picture,
    status: conversation.status,
  };
}

/** `conversation.started`: a conversation Herald had no row for (OpenAPI WebhookPayloadConversationStarted). */
export function conversationStartedData(account: AccountRow, conversation: ConversationRow) {
  return {
    conversation: conversationDetail(account, conversation),
    account: webhookAccount(account),
    startedAt: conversation.created_at,
  };
}

/**
 * `conversation.control_changed` (OpenAPI WebhookPayloadConversationControlChanged): who answers the
 * conversation now, who did before (null when Herald had not recorded an owner), and the note the
 * handover carried, if any.
 */
export function controlChangedData(
  account: AccountRow,
  conversation: ConversationRow,
  control: { owner: string; previousOwner: string | null; metadata?: string },
  changedAt: string,
) {
  return {
    conversation: conversationDetail(account, conversation),
    account: webhookAccount(account),
    control: {
      owner: control.owner,
      previousOwner: control.previousOwner,
      ...(control.metadata === undefined ? {} : { metadata: control.metadata }),
    },
    changedAt,
  };
}

/**
 * `message.sent` (OpenAPI WebhookPayloadMessageSent): a message the account sent. `sentVia` is `api` for
 * one sent through Herald, null for one the account sent elsewhere (seen by a poll or a push).
 */
export function messageSentData(account: AccountRow, conversation: ConversationRow, message: MessageRow) {
  const extra = JSON.parse(message.metadata) as { source?: unknown };
  return {
    message: {
      ...webhookMessage(account, conversation, message),
      isRead: true,
      sentVia: extra.source === 'api' ? 'api' : null,
    },
    conversation: webhookConversation(conversation),
    account: webhookAccount(account),
  };
}

export interface MessageEdit {
  text: string | null;
  attachments: unknown[];
  editedAt: string;
}

/**
 * `message.edited` (OpenAPI WebhookPayloadMessageEdited): `message` as it is now, `editHistory` every prior
 * version, oldest first.
 */
export function messageEditedData(
  account: AccountRow,
  conversation: ConversationRow,
  message: MessageRow,
  editHistory: MessageEdit[],
  editedAt: string,
) {
  return {
    message: webhookMessage(account, conversation, message),
    editHistory,
    editCount: editHistory.length,
    editedAt,
    conversation: webhookConversation(conversation),
    account: webhookAccount(account),
  };
}

/** `message.deleted` (OpenAPI WebhookPayloadMessageDeleted): the message as it was, with its text. */
export function messageDeletedData(
  account: AccountRow,
  conversation: ConversationRow,
  message: MessageRow,
  deletedAt: string,
) {
  return {
    message: webhookMessage(account, conversation, message),
    deletedAt,
    conversation: webhookConversation(conversation),
    account: webhookAccount(account),
  };
}

/**
 * `message.delivered` and `message.read` (OpenAPI WebhookPayloadMessageDeliveryStatus): the account's
 * message the platform reported delivered or read, and when Herald was told (`statusAt`).
 */
export function deliveryStatusData(
  account: AccountRow,
  conversation: ConversationRow,
  message: MessageRow,
  statusAt: string,
) {
  return {
    message: webhookMessage(account, conversation, message),
    statusAt,
    conversation: webhookConversation(conversation),
    account: webhookAccount(account),
  };
}

/**
 * `reaction.received` (OpenAPI WebhookPayloadReaction): an emoji added to or removed from a stored message.
 * `messageId` is Herald's id of the message; the sender is the participant, or the account's own platform
 * id when the account reacted from the platform's app.
 */
export function reactionEventData(
  account: AccountRow,
  conversation: ConversationRow,
  message: MessageRow,
  reaction: { emoji: string; action: 'added' | 'removed'; sender: InboxPerson; reactedAt: string },
) {
  const fromParticipant = reaction.sender.id === conversation.participant_id;
  const name = reaction.sender.name ?? (fromParticipant ? conversation.participant_name : null);
  return {
    reaction: {
      emoji: reaction.emoji,
      action: reaction.action,
      messageId: message.message_id,
      platformMessageId: message.platform_message_id,
      sender: { id: reaction.sender.id ?? '', ...(name ? { name } : {}) },
      reactedAt: reaction.reactedAt,
    },
    conversation: webhookConversation(conversation),
    account: webhookAccount(account),
  };
}

/**
 * `referral.received` (OpenAPI WebhookPayloadReferral): a link or ad click that opened the conversation
 * without a message. `referral` is Meta's object with its documented keys (platforms/graph/referral.ts);
 * the sender is the person who clicked, the conversation's participant.
 */
export function referralEventData(
  account: AccountRow,
  conversation: ConversationRow,
  senderId: string,
  referral: Record<string, unknown>,
) {
  return {
    referral,
    sender: { id: senderId },
    conversation: webhookConversation(conversation),
    account: webhookAccount(account),
  };
}

/** `review.new` and `review.updated` (OpenAPI WebhookPayloadReviewNew / ReviewUpdated). */
export function reviewEventData(account: AccountRow, review: ReviewRow) {
  const hasReply = review.reply_text !== null;
  return {
    review: {
      id: review.platform_review_id,
      platform: account.platform,
      rating: review.rating ?? 0,
      text: review.text ?? '',
      reviewer: { id: review.reviewer_id, name: review.reviewer_name ?? '', profileImage: review.reviewer_picture },
      createdAt: review.reviewed_at,
      hasReply,
      ...(hasReply ? { reply: { text: review.reply_text, createdAt: review.reply_at ?? review.reviewed_at } } : {}),
    },
    account: {
      id: account.account_id,
      accountId: account.account_id,
      platform: account.platform,
      username: account.username,
    },
  };
}
