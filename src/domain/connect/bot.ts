import { randomInt } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { AppError, conflict, forbidden, invalid, notFound } from '../../errors.js';
import { listAccountsByPlatformUser } from '../../store/inbox/sync.js';
import { createPlatformIO } from '../../platforms/io.js';
import type { PlatformDescriptor } from '../../platforms/descriptor.js';
import { PlatformError, type BotChat } from '../../platforms/types.js';
import { findConnectToken, updateConnectTokenData, consumeConnectToken } from '../../store/connect-tokens.js';
import type { Principal } from '../principal.js';
import { presentBotAccount, presentBotConnected } from '../present/bot-connect.js';
import { writeConnectionLog } from './connection-log.js';
import { connectGroup } from './platforms.js';
import type { Platform } from '../../platforms/catalogue.js';
import { assertOwnProfile, saveWithLog } from './oauth.js';
import { hashConnectToken, issueConnectToken, openConnectData, TTL_MS } from './tokens.js';

/** What an access code's row holds (sealed). */
export interface CodeData {
  status: 'pending' | 'connected';
  accountId?: string;
  chatId?: string;
  chatTitle?: string;
  chatType?: string;
  username?: string;
  displayName?: string;
}

/** The platform's bot connect group, or 400 platform_not_configured (no bot token configured). */
const botConnect = (ctx: AppContext, d: PlatformDescriptor) => connectGroup(ctx, d.id as Platform, 'bot');

const io = (ctx: AppContext) => createPlatformIO({ now: () => ctx.clock.now() });

/** Bot API failures while connecting: a missing chat or a bot without rights is the caller's problem (400). */
function connectError(error: unknown, d: PlatformDescriptor): AppError {
  if (error instanceof PlatformError && (error.kind === 'rejected' || error.kind === 'auth')) {
    return invalid(`${d.id}_chat_unavailable`, `${d.name}: ${error.message}`);
  }
  return new AppError('upstream', 'platform_unavailable', `${d.name} could not be reached; try again`, undefined, {
    cause: error,
  });
}

/** Access codes look like `HERALD-7K3Q9X` (no 0/O/1/I to avoid misreading). */
function newCode(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  let s = '';
  for (let i = 0; i < 6; i++) s += alphabet[randomInt(alphabet.length)];
  return `HERALD-${s}`;
}

/** GET /v1/connect/{platform}: an access code (15 minutes) the user posts in the chat where the bot is admin. */
export async function startBotCode(ctx: AppContext, caller: Principal, d: PlatformDescriptor, profileId: string) {
  const { platform, connect: adapter } = botConnect(ctx, d);
  await assertOwnProfile(ctx, caller, profileId);
  const bot = await adapter.getMe(io(ctx)).catch((e) => {
    throw connectError(e, d);
  });
  const code = newCode();
  const owner = { tenantId: caller.tenantId, userId: caller.userId, profileId, platform };
  const { expiresAt } = await issueConnectToken(
    ctx,
    ctx.db.kysely,
    'access_code',
    owner,
    { status: 'pending' } satisfies CodeData,
    { token: code },
  );
  return {
    code,
    expiresAt: expiresAt.toISOString(),
    expiresIn: Math.round(TTL_MS.access_code / 1000),
    botUsername: bot.username,
    instructions: [
      `Add @${bot.username} to your channel or group as an administrator with permission to post messages.`,
      `Send the code ${code} in that chat (a channel post or a group message).`,
      `Herald detects the code and connects the chat; poll PATCH /v1/connect/${platform}?code=... until the status is connected.`,
    ],
  };
}

/**
 * A chat belongs to the one tenant that connected it: the bot is shared by every tenant of this server,
 * and a channel's @username is public, so another tenant naming it would otherwise publish into it,
 * read its inbox and rewrite its commands. It stays refused (409) until its owner disconnects it; the
 * answer does not say who owns it.
 */
async function assertChatFree(ctx: AppContext, platform: string, chatId: string, tenantId: string): Promise<void> {
  const holders = await listAccountsByPlatformUser(ctx.db.kysely, platform, chatId);
  if (holders.some((a) => a.tenant_id !== tenantId)) {
    throw conflict(
      'chat_connected_elsewhere',
      'This chat is already connected to another account of this server; its owner must disconnect it first',
    );
  }
}

/**
 * Connects a chat: it must be free (assertChatFree), the bot must be able to post in it, and `prove`,
 * when given, must accept it (the direct connect's proof of control). Failures are logged.
 */
async function connectChat(
  ctx: AppContext,
  d: PlatformDescriptor,
  owner: { tenantId: string; userId: string | null; profileId: string },
  chatRef: string,
  prove?: (chatId: string) => Promise<void>,
) {
  const { platform, connect: adapter } = botConnect(ctx, d);
  const startedMs = performance.now();
  let chat: BotChat;
  try {
    chat = await adapter.getChat(chatRef, io(ctx));
    await assertChatFree(ctx, platform, chat.id, owner.tenantId);
    const bot = await adapter.getMe(io(ctx));
    if (!(await adapter.canPost(chat, bot.id, io(ctx)))) {
      throw invalid(
        `${platform}_bot_not_admin`,
        `@${bot.username} must be an administrator of this chat with permission to post`,
      );
    }
    await prove?.(chat.id);
  } catch (error) {
    const appError = error instanceof AppError ? error : connectError(error, d);
    await writeConnectionLog(ctx, ctx.db.kysely, {
      ...owner,
      platform,
      eventType: 'connect_failed',
      method: 'credentials',
      error: {
        code: appError.code,
        message: appError.message,
        rawResponse: error instanceof PlatformError ? error.raw : null,
      },
      startedMs,
    });
    throw appError;
  }
  const title = chat.title;
  const { account } = await saveWithLog(
    ctx,
    { platform, ...owner },
    null,
    {
      platformUserId: chat.id,
      username: chat.username ?? title,
      displayName: title,
      profileUrl: adapter.chatUrl(chat),
    },
    startedMs,
    {
      method: 'credentials',
      metadata: { chatId: chat.id, chatType: chat.type, chatTitle: title, chatUsername: chat.username },
    },
  );
  return { account, chat, title };
}

/** An access code anywhere in a message (the user may write more around it). */
const CODE_IN_TEXT = /HERALD-[A-HJ-NP-Z2-9]{6}/gi;

/**
 * The caller's proof that it controls a chat: one of its live access codes for this platform, posted in
 * that very chat (only an administrator can post in a channel; a group member who saw the code cannot
 * use it, since the code is the caller's). Returns the code's hash, consumed, or null.
 */
async function postedCodeOf(
  ctx: AppContext,
  d: PlatformDescriptor,
  tenantId: string,
  chatId: string,
): Promise<string | null> {
  const messages = await botConnect(ctx, d)
    .connect.recentMessages(io(ctx))
    .catch((e) => {
      throw connectError(e, d);
    });
  const now = ctx.clock.now();
  for (const m of messages) {
    if (m.chatId !== chatId) continue;
    for (const found of m.text.matchAll(CODE_IN_TEXT)) {
      const hash = hashConnectToken(found[0].toUpperCase());
      const row = await findConnectToken(ctx.db.kysely, 'access_code', hash);
      if (!row || row.tenant_id !== tenantId || row.platform !== d.id) continue;
      if (openConnectData<CodeData>(ctx, row).status !== 'pending') continue;
      if (await consumeConnectToken(ctx.db.kysely, hash, now)) return hash;
    }
  }
  return null;
}

/**
 * POST /v1/connect/{platform}: connects a chat by id or `@username` directly, once the caller has
 * proved it controls the chat. The bot is shared and a channel's @username is public, so naming a chat
 * proves nothing: either the chat is already this tenant's (a reconnect), or one of the tenant's access
 * codes (GET /v1/connect/{platform}) was posted in it. Otherwise 403 `chat_control_unproven`.
 */
export async function connectBotChat(
  ctx: AppContext,
  caller: Principal,
  d: PlatformDescriptor,
  input: { chatId: string; profileId: string },
) {
  const { platform, connect: adapter } = botConnect(ctx, d);
  await assertOwnProfile(ctx, caller, input.profileId);
  const chatRef = input.chatId.trim();
  if (!adapter.isChatRef(chatRef)) {
    throw invalid('validation_error', 'chatId must be a numeric chat id or an @username', {
      fields: { chatId: ['must be a numeric id or @username'] },
    });
  }
  const owner = { tenantId: caller.tenantId, userId: caller.userId, profileId: input.profileId };
  let proof: string | null = null;
  const { account, chat, title } = await connectChat(ctx, d, owner, chatRef, async (chatId) => {
    const reconnect = (await listAccountsByPlatformUser(ctx.db.kysely, platform, chatId)).some(
      (a) => a.tenant_id === caller.tenantId,
    );
    if (reconnect) return;
    proof = await postedCodeOf(ctx, d, caller.tenantId, chatId);
    if (proof === null) {
      throw forbidden(
        'chat_control_unproven',
        `Prove that you control this chat: get an access code with GET /v1/connect/${platform}?profileId=..., send it in the chat, then call this again`,
        {
          chatId,
        },
      );
    }
  });
  if (proof !== null) {
    const done: CodeData = {
      status: 'connected',
      accountId: account.account_id,
      chatId: chat.id,
      chatTitle: title,
      chatType: chat.type,
      username: account.username,
      displayName: account.display_name ?? account.username,
    };
    await updateConnectTokenData(ctx.db.kysely, proof as string, ctx.secrets.seal(JSON.stringify(done)));
  }
  return { message: `${d.name} chat connected`, account: presentBotAccount(account, chat.type) };
}

/**
 * PATCH /v1/connect/{platform}?code=...: looks for the code in the bot's updates; connects the chat it
 * was posted in. Unknown code (or another tenant's, or another platform's): 404.
 */
export async function pollBotCode(ctx: AppContext, caller: Principal, d: PlatformDescriptor, code: string) {
  const hash = hashConnectToken(code.trim().toUpperCase());
  const row = await findConnectToken(ctx.db.kysely, 'access_code', hash);
  if (!row || row.tenant_id !== caller.tenantId || row.platform !== d.id)
    throw notFound('Access code', 'code_not_found');
  const data = openConnectData<CodeData>(ctx, row);
  if (data.status === 'connected') return presentBotConnected(data, row.platform);
  const now = ctx.clock.now();
  if (row.expires_at <= now.toISOString())
    return { status: 'expired' as const, message: 'The access code expired; request a new one' };
  const pending = {
    status: 'pending' as const,
    expiresAt: row.expires_at,
    expiresIn: Math.max(0, Math.round((new Date(row.expires_at).getTime() - now.getTime()) / 1000)),
  };
  const messages = await botConnect(ctx, d)
    .connect.recentMessages(io(ctx))
    .catch((e) => {
      throw connectError(e, d);
    });
  const needle = code.trim().toUpperCase();
  const hit = messages.find((m) => m.text.toUpperCase().includes(needle));
  if (!hit) return pending;
  // NOTE: the code is consumed before connecting so two concurrent polls connect the chat once.
  if (!(await consumeConnectToken(ctx.db.kysely, hash, now))) return pending;
  const { account, chat, title } = await connectChat(
    ctx,
    d,
    { tenantId: row.tenant_id, userId: row.user_id, profileId: row.profile_id },
    hit.chatId,
  );
  const done: CodeData = {
    status: 'connected',
    accountId: account.account_id,
    chatId: chat.id,
    chatTitle: title,
    chatType: chat.type,
    username: account.username,
    displayName: account.display_name ?? account.username,
  };
  await updateConnectTokenData(ctx.db.kysely, hash, ctx.secrets.seal(JSON.stringify(done)));
  return presentBotConnected(done, row.platform);
}
