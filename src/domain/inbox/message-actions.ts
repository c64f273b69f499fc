import type { AppContext } from '../../context.js';
import { invalidFields, notFound } from '../../errors.js';
import type { MessageRef } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import type { ConversationRow } from '../../store/inbox/conversations.js';
import {
  deleteMessageRow,
  findMessageByAnyId,
  markRead,
  updateMessageMetadata,
} from '../../store/inbox/message-actions.js';
import { messageDeletedData } from '../present/inbox-events.js';
import type { Principal } from '../principal.js';
import { callPlatform, inboxAccount, inboxOf, platformLimitation } from './access.js';
import { conversationOf } from './conversations.js';
import { ingestMessage } from './ingest.js';
import { storeThreadControl, type ControlOwner } from './thread-control.js';

/*
 * Actions on a conversation and its messages beyond sending: start one, mark it read, typing, hand the
 * thread over, react, delete, resolve an attachment. Each calls the platform where its API offers the
 * action (the adapter's optional function) and is a 400 PLATFORM_LIMITATION elsewhere; read state and
 * attachments are Herald's own.
 */

const refOf = (conversation: ConversationRow, messageId?: string): MessageRef => ({
  conversationId: conversation.platform_conversation_id,
  messageId,
  participantId: conversation.participant_id,
  metadata: JSON.parse(conversation.metadata),
});

function conversationsOf(ctx: AppContext, account: AccountRow) {
  const conversations = inboxOf(ctx, account.platform)?.conversations;
  if (!conversations) throw platformLimitation(account.platform, 'direct messages');
  return conversations;
}

/** POST /inbox/conversations: a first message to someone, which opens (or continues) the conversation. */
export async function createInboxConversation(
  ctx: AppContext,
  caller: Principal,
  body: { accountId: string; participantId?: string; participantUsername?: string; message?: string },
) {
  const account = await inboxAccount(ctx, caller, body.accountId);
  const create = conversationsOf(ctx, account).create;
  if (!create) throw platformLimitation(account.platform, 'starting conversations');
  if (!body.participantId)
    throw invalidFields('participantId is required', {
      participantId: ['required: the platform user id of the recipient'],
    });
  if (!body.message?.trim()) throw invalidFields('message is required', { message: ['must not be empty'] });
  const participantId = body.participantId;
  const text = body.message;
  const sent = await callPlatform(ctx, account, (creds, io) => create(creds, { participantId, text }, io));
  const now = ctx.clock.now();
  const { conversation } = await ctx.db.transaction((tx) =>
    ingestMessage(
      ctx,
      tx,
      account,
      {
        conversationId: sent.conversationId,
        messageId: sent.messageId,
        direction: 'outgoing',
        sender: { id: account.platform_user_id, name: account.display_name ?? account.username },
        participant: { id: participantId },
        text,
        sentAt: sent.sentAt,
        extra: sent.extra,
      },
      now,
    ),
  );
  return {
    success: true,
    data: {
      messageId: sent.messageId,
      conversationId: sent.conversationId,
      participantId,
      participantName: conversation.participant_name,
      participantUsername: conversation.participant_username,
    },
  };
}

/** POST .../read: Herald's unread count goes to 0 (the platforms' own read receipts are not sent). */
export async function markInboxConversationRead(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  accountId: string,
) {
  const { conversation } = await conversationOf(ctx, caller, conversationId, accountId);
  const markedCount = await markRead(ctx.db.kysely, conversation.conversation_id);
  return { success: true, markedCount };
}

/** POST .../typing: best effort, always 200; `success` says whether the platform was told. */
export async function sendInboxTyping(ctx: AppContext, caller: Principal, conversationId: string, accountId: string) {
  const { account, conversation } = await conversationOf(ctx, caller, conversationId, accountId);
  const typing = inboxOf(ctx, account.platform)?.conversations?.typing;
  if (!typing) return { success: false };
  try {
    await callPlatform(ctx, account, (creds, io) => typing(creds, refOf(conversation), io));
    return { success: true };
  } catch (error) {
    ctx.log.info({ err: error, accountId: account.account_id }, 'typing indicator not sent');
    return { success: false };
  }
}

/** POST .../thread-control: Messenger's handover protocol. */
export async function setInboxThreadControl(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  body: { accountId: string; action: 'release' | 'take' | 'pass'; target?: 'ai_agent'; metadata?: string },
) {
  const { account, conversation } = await conversationOf(ctx, caller, conversationId, body.accountId);
  const control = conversationsOf(ctx, account).threadControl;
  if (!control) throw platformLimitation(account.platform, 'thread control');
  const res = await callPlatform(ctx, account, (creds, io) =>
    control(
      creds,
      { ...refOf(conversation), action: body.action, target: body.target ?? null, note: body.metadata ?? null },
      io,
    ),
  );
  // The note travels with a pass or a take; a release forwards none (the adapter drops it).
  const note = body.action === 'release' ? undefined : body.metadata;
  await recordThreadControl(ctx, account, conversation, res.owner, note);
  return { success: true, control: { owner: res.owner } };
}

/** Stores the owner the platform accepted (thread-control.ts), announcing a change. */
async function recordThreadControl(
  ctx: AppContext,
  account: AccountRow,
  conversation: ConversationRow,
  owner: ControlOwner,
  note: string | undefined,
) {
  const now = ctx.clock.now();
  await ctx.db.transaction((tx) =>
    storeThreadControl(ctx, tx, account, conversation.platform_conversation_id, { owner, note, at: now }, now),
  );
}

/** The conversation's message by the platform's id or Herald's: 404 otherwise. */
async function messageOf(ctx: AppContext, conversation: ConversationRow, messageId: string) {
  const message = await findMessageByAnyId(ctx.db.kysely, conversation.conversation_id, messageId);
  if (!message) throw notFound('Message', 'message_not_found');
  return message;
}

/** POST adds (`emoji`), DELETE removes the account's reaction to a message. */
export async function reactToInboxMessage(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  messageId: string,
  body: { accountId: string; emoji: string | null },
) {
  const { account, conversation } = await conversationOf(ctx, caller, conversationId, body.accountId);
  const react = conversationsOf(ctx, account).react;
  if (!react) throw platformLimitation(account.platform, 'message reactions');
  if (body.emoji !== null && !body.emoji.trim())
    throw invalidFields('emoji is required', { emoji: ['must be an emoji'] });
  const message = await messageOf(ctx, conversation, messageId);
  await callPlatform(ctx, account, (creds, io) =>
    react(creds, { ...refOf(conversation, message.platform_message_id), emoji: body.emoji }, io),
  );
  const metadata = JSON.parse(message.metadata) as Record<string, unknown>;
  if (body.emoji === null) delete metadata.reaction;
  else metadata.reaction = body.emoji;
  await updateMessageMetadata(ctx.db.kysely, message.message_id, JSON.stringify(metadata));
  return { success: true, messageId: message.message_id, platformMessageId: message.platform_message_id };
}

/** DELETE .../messages/{id}: deleted on the platform, then from Herald (`message.deleted`). */
export async function deleteInboxMessage(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  messageId: string,
  accountId: string,
) {
  const { account, conversation } = await conversationOf(ctx, caller, conversationId, accountId);
  const del = conversationsOf(ctx, account).deleteMessage;
  if (!del) throw platformLimitation(account.platform, 'deleting messages');
  const message = await messageOf(ctx, conversation, messageId);
  await callPlatform(ctx, account, (creds, io) => del(creds, refOf(conversation, message.platform_message_id), io));
  const now = ctx.clock.now();
  // The row goes and message.deleted (the message as it was) is written with it (the outbox).
  await ctx.db.transaction(async (tx) => {
    await deleteMessageRow(tx, message.message_id);
    await ctx.events.emit(
      tx,
      account.tenant_id,
      'message.deleted',
      messageDeletedData(account, conversation, message, now.toISOString()),
      now,
    );
  });
  return { success: true };
}

/** GET .../attachments/{index}: the stored url of one attachment (a redirect, or JSON with `format=json`). */
export async function resolveInboxAttachment(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  messageId: string,
  index: number,
  accountId: string,
) {
  const { conversation } = await conversationOf(ctx, caller, conversationId, accountId);
  const message = await messageOf(ctx, conversation, messageId);
  const attachments = JSON.parse(message.attachments) as Array<{ url?: string }>;
  const url = attachments[index]?.url;
  if (!url) throw notFound('Attachment', 'attachment_not_found');
  return { status: 'success', url, refreshed: false };
}
