import type { AccountRow } from '../../store/accounts.js';
import type { CommentRow, InboxPostRow } from '../../store/inbox/comments.js';
import type { ConversationRow, MessageRow } from '../../store/inbox/conversations.js';
import type { InboxPerson } from '../../platforms/types.js';

/*
 * The bodies of `message.received` and `comment.received` (OpenAPI WebhookPayloadMessage and
 * WebhookPayloadComment). Ids are the ones the inbox API takes: the platform's, with the account.
 */

export function messageEventData(
  account: AccountRow,
  conversation: ConversationRow,
  message: MessageRow,
  sender: InboxPerson,
) {
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
    conversation: {
      id: conversation.platform_conversation_id,
      platformConversationId: conversation.platform_conversation_id,
      participantId: conversation.participant_id,
      participantName: conversation.participant_name,
      participantUsername: conversation.participant_username,
      participantPicture: conversation.participant_picture,
      status: conversation.status,
    },
    account: {
      id: account.account_id,
      platform: account.platform,
      username: account.username,
      displayName: account.display_name ?? account.username,
    },
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
