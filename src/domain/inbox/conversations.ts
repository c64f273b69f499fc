import type { AppContext } from '../../context.js';
import { invalid, invalidFields, notFound } from '../../errors.js';
import type { OutgoingMessage } from '../../platforms/types.js';
import {
  findConversation,
  findMessage,
  lastIncomingAt,
  listConversations,
  listMessages,
  markConversationRead,
  setConversationStatus,
  updateMessageText,
  type ConversationRow,
  type MessageRow,
} from '../../store/inbox/conversations.js';
import { updateMessageMetadata } from '../../store/inbox/message-actions.js';
import type { AccountRow } from '../../store/accounts.js';
import { presentConversation, presentConversationDetail, presentMessage } from '../present/inbox.js';
import { messageEditedData, type MessageEdit } from '../present/inbox-events.js';
import type { Principal } from '../principal.js';
import { callPlatform, inboxAccount, inboxAccounts, inboxOf, platformLimitation } from './access.js';
import { attachmentKind, storeInboxAttachment, type UploadedAttachment } from './attachment-upload.js';
import { decodeCursor, page } from './cursor.js';
import { listMeta } from './list-meta.js';
import { ingestMessage } from './ingest.js';
import { checkMessageFeatures, checkReplyWindow, type SendMessageInput } from './message-rules.js';

export async function listInboxConversations(
  ctx: AppContext,
  caller: Principal,
  q: {
    profileId?: string;
    platform?: string;
    status?: string;
    sortOrder?: 'asc' | 'desc';
    limit?: number;
    cursor?: string;
    accountId?: string;
  },
) {
  const accounts = (await inboxAccounts(ctx, caller, q)).filter((a) => inboxOf(ctx, a.platform)?.conversations);
  const limit = q.limit ?? 50;
  const rows = await listConversations(ctx.db.kysely, {
    tenantId: caller.tenantId,
    accountIds: accounts.map((a) => a.account_id),
    status: q.status,
    order: q.sortOrder ?? 'desc',
    after: decodeCursor(q.cursor),
    limit: limit + 1,
  });
  const p = page(rows, limit, (r) => ({ value: r.last_message_at, id: r.conversation_id }));
  return {
    data: p.items.map(presentConversation),
    pagination: { hasMore: p.hasMore, nextCursor: p.nextCursor },
    meta: await listMeta(ctx, accounts),
  };
}

/** The conversation `id` (the platform's) of the caller's account: 404 for anything else. */
export async function conversationOf(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  accountId: string,
): Promise<{ account: AccountRow; conversation: ConversationRow }> {
  const account = await inboxAccount(ctx, caller, accountId);
  const conversation = await findConversation(ctx.db.kysely, account.account_id, conversationId);
  if (!conversation) throw notFound('Conversation', 'conversation_not_found');
  return { account, conversation };
}

export async function getInboxConversation(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  accountId: string,
) {
  const { account, conversation } = await conversationOf(ctx, caller, conversationId, accountId);
  return { data: presentConversationDetail({ ...conversation, account_username: account.username }) };
}

/** PUT: archive or reactivate. Herald keeps the status; a platform with an archive of its own is told too. */
export async function updateInboxConversation(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  body: { accountId: string; status: 'active' | 'archived' },
) {
  const { account, conversation } = await conversationOf(ctx, caller, conversationId, body.accountId);
  const archive = inboxOf(ctx, account.platform)?.conversations?.archive;
  if (!archive) throw platformLimitation(account.platform, 'archiving conversations');
  await callPlatform(ctx, account, (creds, io) =>
    archive(creds, conversation.platform_conversation_id, body.status === 'archived', io),
  );
  const now = ctx.clock.now().toISOString();
  await setConversationStatus(ctx.db.kysely, conversation.conversation_id, body.status, now);
  return {
    success: true,
    data: {
      id: conversation.platform_conversation_id,
      accountId: account.account_id,
      status: body.status,
      platform: account.platform,
      updatedAt: now,
    },
  };
}

export async function listInboxMessages(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  q: { accountId: string; limit?: number; cursor?: string; sortOrder?: 'asc' | 'desc' },
) {
  const { conversation } = await conversationOf(ctx, caller, conversationId, q.accountId);
  const limit = q.limit ?? 100;
  const rows = await listMessages(ctx.db.kysely, {
    conversationId: conversation.conversation_id,
    order: q.sortOrder ?? 'asc',
    after: decodeCursor(q.cursor),
    limit: limit + 1,
  });
  const p = page(rows, limit, (r) => ({ value: r.sent_at, id: r.message_id }));
  if (caller.permission !== 'read' && conversation.unread_count > 0)
    await markConversationRead(ctx.db.kysely, conversation.conversation_id);
  return {
    status: 'success',
    messages: p.items.map((r) => presentMessage(r, conversation)),
    pagination: { hasMore: p.hasMore, nextCursor: p.nextCursor },
    lastUpdated: ctx.clock.now().toISOString(),
  };
}

/**
 * POST: sends through the platform, then stores the sent message as `outgoing` (`message.sent`). Everything
 * the platform cannot carry is refused before it is called. An `upload` (the multipart `attachment`)
 * is checked, then stored in Herald's media storage only once every other check passed, and taken
 * back if the platform refuses the message: a refused request stores nothing.
 */
export async function sendInboxMessage(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  input: SendMessageInput,
  upload?: UploadedAttachment,
) {
  const { account, conversation } = await conversationOf(ctx, caller, conversationId, input.accountId);
  const conversations = inboxOf(ctx, account.platform)?.conversations;
  if (!conversations) throw platformLimitation(account.platform, 'direct messages');
  if (upload && input.attachment)
    throw invalidFields('Send the attachment as a file or as a URL, not both', { attachment: ['sent twice'] });
  const sniffed = upload ? attachmentKind(upload) : null;
  // The rules see the file's type as read from its bytes; its URL exists only once it is stored.
  const checked = sniffed ? { ...input, attachment: { type: sniffed.attachment, url: 'upload:' } } : input;
  checkMessageFeatures(account.platform, conversations.features, checked);
  const lastIncoming = await lastIncomingAt(ctx.db.kysely, conversation.conversation_id);
  checkReplyWindow(
    account.platform,
    conversations.features,
    checked,
    lastIncoming ? new Date(lastIncoming) : null,
    ctx.clock.now(),
  );
  const stored = upload && sniffed ? await storeInboxAttachment(ctx, caller.tenantId, upload, sniffed) : null;
  if (stored) input = { ...input, attachment: stored.attachment };
  return deliver(ctx, account, conversation, conversations, input, lastIncoming, stored?.discard);
}

async function deliver(
  ctx: AppContext,
  account: AccountRow,
  conversation: ConversationRow,
  conversations: NonNullable<ReturnType<typeof inboxOf>>['conversations'] & object,
  input: SendMessageInput,
  lastIncoming: string | null,
  discardAttachment?: () => Promise<void>,
) {
  const outgoing: OutgoingMessage = {
    conversationId: conversation.platform_conversation_id,
    text: input.message ?? null,
    attachment: input.attachment ?? null,
    quickReplies: input.quickReplies,
    buttons: input.buttons,
    template: input.template,
    replyMarkup: input.replyMarkup,
    messagingType: input.messagingType,
    messageTag: input.messageTag,
    replyTo: input.replyTo ?? null,
    conversation: {
      participantId: conversation.participant_id,
      metadata: JSON.parse(conversation.metadata),
      lastIncomingAt: lastIncoming ? new Date(lastIncoming) : null,
    },
  };
  let sent;
  try {
    sent = await callPlatform(ctx, account, (creds, io) => conversations.send(creds, outgoing, io));
  } catch (error) {
    // The platform refused or could not be reached: the attachment stored for this message goes too.
    await discardAttachment?.().catch((e: unknown) =>
      ctx.log.warn({ err: e }, 'the attachment of an unsent message could not be removed'),
    );
    throw error;
  }
  const now = ctx.clock.now();
  await ctx.db.transaction((tx) =>
    ingestMessage(
      ctx,
      tx,
      account,
      {
        conversationId: conversation.platform_conversation_id,
        messageId: sent.messageId,
        direction: 'outgoing',
        sender: {
          id: account.platform_user_id,
          name: account.display_name ?? account.username,
          username: account.username,
        },
        text: input.message ?? null,
        attachments: input.attachment ? [{ type: input.attachment.type, url: input.attachment.url }] : [],
        sentAt: sent.sentAt,
        // The lineage the inbox analytics count it under (migration 0310).
        extra: { ...sent.extra, source: 'api' },
      },
      now,
    ),
  );
  return {
    success: true,
    data: {
      messageId: sent.messageId,
      conversationId: conversation.platform_conversation_id,
      sentAt: sent.sentAt.toISOString(),
      message: null,
    },
  };
}

/** PATCH: edits a message the account sent (platforms with `edit`: Telegram). */
export async function editInboxMessage(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  messageId: string,
  body: { accountId: string; text?: string; replyMarkup?: Record<string, unknown> },
) {
  const { account, conversation } = await conversationOf(ctx, caller, conversationId, body.accountId);
  const edit = inboxOf(ctx, account.platform)?.conversations?.edit;
  if (!edit) throw platformLimitation(account.platform, 'editing messages');
  if (body.text === undefined && body.replyMarkup === undefined) {
    throw invalid('validation_error', 'Send text or replyMarkup to edit', {
      fields: { text: ['text or replyMarkup is required'] },
    });
  }
  const message = await findMessage(ctx.db.kysely, conversation.conversation_id, messageId);
  if (!message) throw notFound('Message', 'message_not_found');
  if (message.direction !== 'outgoing')
    throw invalid('message_not_editable', 'Only messages the account sent can be edited');
  await callPlatform(ctx, account, (creds, io) =>
    edit(
      creds,
      {
        conversationId: conversation.platform_conversation_id,
        messageId,
        text: body.text,
        replyMarkup: body.replyMarkup,
      },
      io,
    ),
  );
  if (body.text !== undefined) await recordEdit(ctx, account, conversation, message, body.text);
  return { success: true, data: { messageId: /^\d+$/.test(messageId) ? Number(messageId) : messageId } };
}

/**
 * Stores the new text and keeps the version it replaces (metadata `editHistory`, oldest first), then
 * emits `message.edited` in the same transaction.
 */
async function recordEdit(
  ctx: AppContext,
  account: AccountRow,
  conversation: ConversationRow,
  message: MessageRow,
  text: string,
) {
  const now = ctx.clock.now();
  const iso = now.toISOString();
  const metadata = JSON.parse(message.metadata) as { editHistory?: MessageEdit[] };
  const editHistory: MessageEdit[] = [
    ...(metadata.editHistory ?? []),
    {
      text: message.text,
      attachments: JSON.parse(message.attachments),
      editedAt: message.edited_at ?? message.sent_at,
    },
  ];
  const edited = { ...message, text, edited_at: iso, metadata: JSON.stringify({ ...metadata, editHistory }) };
  await ctx.db.transaction(async (tx) => {
    await updateMessageText(tx, message.message_id, text, iso);
    await updateMessageMetadata(tx, message.message_id, edited.metadata);
    await ctx.events.emit(
      tx,
      account.tenant_id,
      'message.edited',
      messageEditedData(account, conversation, edited, editHistory, iso),
      now,
    );
  });
}
