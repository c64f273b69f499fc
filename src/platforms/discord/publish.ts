import {
  PlatformError,
  type AccountCredentials,
  type MediaRef,
  type PlatformIO,
  type PublishRequest,
  type PublishResult,
  type ThreadProgress,
} from '../types.js';
import { ThreadIncompleteError } from '../types.js';
import type { DiscordCall, DiscordChannel, DiscordMessage, DiscordWebhook } from './api.js';
import {
  ANNOUNCEMENT_CHANNEL,
  embedCharacters,
  EMBED_TOTAL,
  FORUM_CHANNEL,
  MAX_FILES,
  TEXT,
  THREAD_NAME_MAX,
} from './rules.js';

export type Call = <T>(io: PlatformIO, call: DiscordCall) => Promise<T>;

/** Upload limit per file (https://discord.com/developers/docs/reference#uploading-files), 10 MiB unboosted. */
const FILE_MAX = 10 * 1024 * 1024;

/** Where a target goes: the account's channel, or another channel of its guild that `channelId` names. */
interface Destination {
  channelId: string;
  channelType: number;
  guildId: string;
}

/** `messageId`, or `channelId/messageId` for a message outside the account's own channel. */
function postRef(dest: Destination, account: AccountCredentials, messageId: string): string {
  return dest.channelId === String(account.metadata.channelId) ? messageId : `${dest.channelId}/${messageId}`;
}

export function parsePostRef(account: AccountCredentials, ref: string): { channelId: string; messageId: string } {
  const [a, b] = ref.split('/');
  return b ? { channelId: a, messageId: b } : { channelId: String(account.metadata.channelId), messageId: a };
}

export function messageUrl(guildId: string, channelId: string, messageId: string): string {
  return `https://discord.com/channels/${guildId}/${channelId}/${messageId}`;
}

/**
 * The target's channel. A `channelId` other than the account's must be a channel of the same guild
 * (asked of Discord): the bot is shared by every tenant, so a channel of another guild is refused.
 */
async function destinationOf(call: Call, req: PublishRequest, io: PlatformIO): Promise<Destination> {
  const meta = req.account.metadata;
  const own = {
    channelId: String(meta.channelId),
    channelType: Number(meta.channelType ?? 0),
    guildId: String(meta.guildId),
  };
  const named = req.platformSpecificData.channelId;
  if (typeof named !== 'string' || named === own.channelId) return own;
  const channel = await call<DiscordChannel>(io, { method: 'GET', path: `/channels/${named}` });
  if (channel.guild_id !== own.guildId)
    throw new PlatformError('rejected', `channel ${named} is not in this account's Discord server`, {
      platformCode: 'channel_not_in_guild',
    });
  return { channelId: channel.id, channelType: channel.type, guildId: own.guildId };
}

async function readAll(io: PlatformIO, m: MediaRef): Promise<{ bytes: Buffer; contentType: string }> {
  const opened = await io.openMedia(m);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of opened.stream as AsyncIterable<Buffer | string>) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += b.length;
    if (size > FILE_MAX)
      throw new PlatformError('rejected', `a Discord attachment is limited to ${FILE_MAX / 1024 / 1024} MiB`, {
        platformCode: '40005',
      });
    chunks.push(b);
  }
  return { bytes: Buffer.concat(chunks), contentType: opened.contentType };
}

function filename(m: MediaRef, i: number, contentType: string): string {
  if (m.filename) return m.filename;
  const fromUrl = (() => {
    try {
      return new URL(m.url).pathname.split('/').pop() ?? '';
    } catch {
      return '';
    }
  })();
  if (/\.[a-z0-9]{2,5}$/i.test(fromUrl)) return fromUrl;
  const ext = contentType.split('/')[1]?.split(';')[0] ?? 'bin';
  return `file${i}.${ext === 'jpeg' ? 'jpg' : ext}`;
}

/** The message body (https://discord.com/developers/docs/resources/message#create-message-jsonform-params). */
export function messageBody(text: string, psd: Record<string, unknown>, nonce: string | null): Record<string, unknown> {
  if (TEXT.count(text) > TEXT.limit)
    throw new PlatformError('rejected', `Discord text is limited to ${TEXT.limit} characters`, {
      platformCode: '50035',
    });
  const embeds = Array.isArray(psd.embeds) ? (psd.embeds as Array<Record<string, unknown>>) : [];
  if (embedCharacters(embeds) > EMBED_TOTAL)
    throw new PlatformError('rejected', `Discord embeds hold at most ${EMBED_TOTAL} characters together`, {
      platformCode: '50035',
    });
  return {
    ...(text ? { content: text } : {}),
    ...(embeds.length ? { embeds } : {}),
    ...(psd.poll ? { poll: psd.poll } : {}),
    ...(psd.tts === true ? { tts: true } : {}),
    // https://discord.com/developers/docs/resources/message#create-message: with enforce_nonce, a second
    // create with the same nonce by the same bot within a few minutes answers the first message instead
    // of posting again, so a retry after a lost answer does not duplicate.
    ...(nonce ? { nonce, enforce_nonce: true } : {}),
  };
}

/** Where a message is created: a channel (as the bot), or a channel webhook (as the account's identity). */
export type Route = { channelId: string } | { webhook: { id: string; token: string }; threadId?: string };

function routeCall(to: Route): Pick<DiscordCall, 'path' | 'query' | 'loggedPath'> {
  if ('channelId' in to) return { path: `/channels/${to.channelId}/messages` };
  // https://discord.com/developers/docs/resources/webhook#execute-webhook: `wait=true` answers the message.
  return {
    path: `/webhooks/${to.webhook.id}/${to.webhook.token}`,
    loggedPath: `/webhooks/${to.webhook.id}/<token>`,
    query: { wait: true, thread_id: to.threadId },
  };
}

/** POST a message: JSON, or multipart with `payload_json` and `files[n]` when it has attachments. */
export async function sendMessage(
  call: Call,
  io: PlatformIO,
  to: string | Route,
  body: Record<string, unknown>,
  media: MediaRef[],
): Promise<DiscordMessage> {
  const route = routeCall(typeof to === 'string' ? { channelId: to } : to);
  if (media.length > MAX_FILES)
    throw new PlatformError('rejected', `at most ${MAX_FILES} attachments`, { platformCode: '50035' });
  if (media.length === 0) {
    if (!body.content && !body.embeds && !body.poll)
      throw new PlatformError('rejected', 'a Discord message needs text, an attachment, an embed or a poll', {
        platformCode: '50006',
      });
    return call<DiscordMessage>(io, { method: 'POST', ...route, json: body, creates: true });
  }
  const files = await Promise.all(media.map((m) => readAll(io, m)));
  const form = new FormData();
  // NOTE: the attachment's id is the index of its `files[n]` part, sent as a string: Discord's OpenAPI
  // types it as a snowflake string and refuses a number.
  const attachments = media.map((m, i) => ({
    id: String(i),
    filename: filename(m, i, files[i].contentType),
    ...(m.altText ? { description: m.altText.slice(0, 1024) } : {}),
  }));
  form.append('payload_json', JSON.stringify({ ...body, attachments }));
  files.forEach((f, i) =>
    form.append(`files[${i}]`, new Blob([f.bytes], { type: f.contentType }), attachments[i].filename),
  );
  return call<DiscordMessage>(io, { method: 'POST', ...route, form, creates: true });
}

/** The message author's name and avatar: the post's, else the account's (PATCH discord-settings); null: the bot's own. */
export function identityOf(
  req: Pick<PublishRequest, 'platformSpecificData' | 'account'>,
): { username?: string; avatar_url?: string } | null {
  const psd = req.platformSpecificData;
  const meta = req.account.metadata;
  const pick = (a: unknown, b: unknown) =>
    typeof a === 'string' && a ? a : typeof b === 'string' && b ? b : undefined;
  const username = pick(psd.webhookUsername, meta.webhookUsername);
  const avatar = pick(psd.webhookAvatarUrl, meta.webhookAvatarUrl);
  return username || avatar ? { ...(username ? { username } : {}), ...(avatar ? { avatar_url: avatar } : {}) } : null;
}

/**
 * The channel's webhook Herald's bot created, or a new one: a message sent through it shows the name and
 * avatar it is given (https://discord.com/developers/docs/resources/webhook#create-webhook).
 */
async function channelWebhook(
  call: Call,
  io: PlatformIO,
  channelId: string,
  botId: string,
): Promise<{ id: string; token: string }> {
  const hooks = await call<DiscordWebhook[]>(io, { method: 'GET', path: `/channels/${channelId}/webhooks` });
  const own = hooks.find((w) => w.type === 1 && w.user?.id === botId && w.token);
  if (own) return { id: own.id, token: own.token! };
  const made = await call<DiscordWebhook>(io, {
    method: 'POST',
    path: `/channels/${channelId}/webhooks`,
    json: { name: 'Herald' },
  });
  return { id: made.id, token: made.token! };
}

/** A thread's name: `threadFromMessage.name`, else the start of the text (1-100 characters). */
function threadName(req: PublishRequest): string {
  const given = (req.platformSpecificData.threadFromMessage as { name?: string } | undefined)?.name;
  const base = (given ?? req.content.split('\n')[0] ?? '').trim();
  return [...(base || 'Thread')].slice(0, THREAD_NAME_MAX).join('');
}

/**
 * Publishes the target: the root message (a forum post in a forum channel), its crosspost in an
 * announcement channel, then `threadItems` as a thread started from the root, each item one message
 * in it. Progress is recorded after the root and each reply, so a retry continues where it stopped.
 */
export async function publishTarget(
  call: Call,
  req: PublishRequest,
  io: PlatformIO,
  botId: (io: PlatformIO) => Promise<string>,
): Promise<PublishResult> {
  const psd = req.platformSpecificData;
  const dest = await destinationOf(call, req, io);
  // With a message identity the messages go through the channel's webhook (forum posts stay the bot's).
  const identity = dest.channelType === FORUM_CHANNEL ? null : identityOf(req);
  const webhook = identity ? await channelWebhook(call, io, dest.channelId, await botId(io)) : null;
  const nonce = req.idempotencyKey ? req.idempotencyKey.replace(/[^A-Za-z0-9]/g, '').slice(0, 25) : null;
  let rootId: string;
  let threadId: string | null = null;
  const replies: ThreadProgress['replies'] = [...(req.resume?.replies ?? [])];
  if (req.resume) {
    rootId = parsePostRef(req.account, req.resume.platformPostId).messageId;
    threadId = (req.resume.state?.threadId as string | undefined) ?? rootId;
  } else if (dest.channelType === FORUM_CHANNEL) {
    // A forum channel takes threads, not messages: the post is a thread whose first message is the target
    // (https://discord.com/developers/docs/resources/channel#start-thread-in-forum-or-media-channel).
    const name = typeof psd.forumThreadName === 'string' && psd.forumThreadName ? psd.forumThreadName : threadName(req);
    const message = messageBody(req.content, psd, null);
    if (req.media.length)
      throw new PlatformError('rejected', 'Herald posts forum threads without attachments', {
        platformCode: 'forum_attachments',
      });
    const thread = await call<DiscordChannel & { message?: { id: string } }>(io, {
      method: 'POST',
      path: `/channels/${dest.channelId}/threads`,
      json: { name, message, ...(Array.isArray(psd.forumAppliedTags) ? { applied_tags: psd.forumAppliedTags } : {}) },
      creates: true,
    });
    rootId = thread.message?.id ?? thread.id;
    threadId = thread.id;
  } else {
    // NOTE: a webhook takes no nonce; after a lost answer the engine looks the message up instead.
    const root = webhook
      ? await sendMessage(call, io, { webhook }, { ...messageBody(req.content, psd, null), ...identity }, req.media)
      : await sendMessage(call, io, dest.channelId, messageBody(req.content, psd, nonce), req.media);
    rootId = root.id;
    // Announcement channels: publish to the servers that follow the channel
    // (https://discord.com/developers/docs/resources/message#crosspost-message). Best effort: the post is out.
    if (psd.crosspost === true && dest.channelType === ANNOUNCEMENT_CHANNEL) {
      await call(io, { method: 'POST', path: `/channels/${dest.channelId}/messages/${rootId}/crosspost` }).catch(
        () => undefined,
      );
    }
  }
  const ref = postRef(dest, req.account, rootId);
  const url = messageUrl(
    dest.guildId,
    threadId && dest.channelType === FORUM_CHANNEL ? threadId : dest.channelId,
    rootId,
  );
  const progress = (): ThreadProgress => ({
    platformPostId: ref,
    platformPostUrl: url,
    replies: [...replies],
    state: { channelId: dest.channelId, ...(threadId ? { threadId } : {}) },
  });
  const wantsThread = req.threadItems.length > 0 || psd.threadFromMessage !== undefined;
  if (wantsThread && !threadId) {
    const opts = (psd.threadFromMessage ?? {}) as { autoArchiveDuration?: number; rateLimitPerUser?: number };
    // https://discord.com/developers/docs/resources/channel#start-thread-from-message: the thread's id is the message's.
    const thread = await call<DiscordChannel>(io, {
      method: 'POST',
      path: `/channels/${dest.channelId}/messages/${rootId}/threads`,
      json: {
        name: threadName(req),
        ...(opts.autoArchiveDuration ? { auto_archive_duration: opts.autoArchiveDuration } : {}),
        ...(opts.rateLimitPerUser !== undefined ? { rate_limit_per_user: opts.rateLimitPerUser } : {}),
      },
    });
    threadId = thread.id;
  }
  if (req.threadItems.length) await io.threadProgress?.(progress());
  for (let i = replies.length; i < req.threadItems.length; i++) {
    const item = req.threadItems[i];
    try {
      const reply = webhook
        ? await sendMessage(
            call,
            io,
            { webhook, threadId: threadId! },
            { ...messageBody(item.content, {}, null), ...identity },
            item.media,
          )
        : await sendMessage(
            call,
            io,
            threadId!,
            messageBody(item.content, {}, nonce ? `${nonce.slice(0, 21)}t${i}` : null),
            item.media,
          );
      replies.push({ id: reply.id, url: messageUrl(dest.guildId, threadId!, reply.id) });
      await io.threadProgress?.(progress());
    } catch (error) {
      if (error instanceof PlatformError) throw new ThreadIncompleteError(progress(), req.threadItems.length, error);
      throw error;
    }
  }
  return {
    platformPostId: ref,
    platformPostUrl: url,
    extra: { channelId: dest.channelId, ...(threadId ? { threadId, replyIds: replies.map((r) => r.id) } : {}) },
  };
}
