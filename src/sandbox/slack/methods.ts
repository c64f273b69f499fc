import { markDeleted, type InspectedPost, type SimulatorState } from '../types.js';
import { SlackError, type MethodCall } from './call.js';
import { exchangeToken } from './oauth.js';
import {
  conversationJson,
  fileId,
  messageJson,
  nextTs,
  slackStore,
  userJson,
  type SimChannel,
  type SimMessage,
  type SimWorkspace,
} from './store.js';

/*
 * The Web API methods Herald calls, each as Slack documents it (https://api.slack.com/methods/<name>):
 * what it checks, what it stores, what it answers (without `ok`, which the dispatcher adds). A refusal
 * is a SlackError with the method's own error string.
 */

type Handler = (call: MethodCall & { ws: SimWorkspace }) => Record<string, unknown>;

/** chat.postMessage's limits (https://api.slack.com/methods/chat.postMessage). */
const TEXT_LIMIT = 40_000;
/** chat.update's text limit (https://api.slack.com/methods/chat.update): a tenth of a new message's. */
const UPDATE_TEXT_LIMIT = 4_000;
const MAX_BLOCKS = 50;
const SECTION_TEXT = 3_000;
const FILE_LIMIT = 1024 * 1024 * 1024;

const codePoints = (s: string) => [...s].length;
const unescapeMrkdwn = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function jsonArg(value: string | undefined, error: string): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw new SlackError(error);
  }
}

const bool = (v: string | undefined, fallback: boolean) => (v === undefined ? fallback : v === 'true' || v === '1');

export function slackMethods(state: SimulatorState, now: () => Date) {
  const store = () => slackStore(state);

  /** A channel by id or name (`general`, `#general`); private ones only when the bot is in them. */
  function findChannel(ws: SimWorkspace, ref: string | undefined): SimChannel {
    const name = (ref ?? '').replace(/^#/, '');
    const c = ws.channels.find((ch) => ch.id === ref || ch.name === name);
    if (!c || (c.isPrivate && !c.botMember)) throw new SlackError('channel_not_found');
    return c;
  }

  function postable(ws: SimWorkspace, ref: string | undefined): SimChannel {
    const c = findChannel(ws, ref);
    // Without chat:write.public a bot posts only where it is a member.
    if (!c.botMember) throw new SlackError('not_in_channel');
    return c;
  }

  function checkBlocks(raw: string | undefined): unknown[] | undefined {
    const blocks = jsonArg(raw, 'invalid_blocks');
    if (blocks === undefined) return undefined;
    if (!Array.isArray(blocks) || blocks.length > MAX_BLOCKS) throw new SlackError('invalid_blocks');
    for (const b of blocks) {
      const block = b as { type?: unknown; text?: { text?: unknown } };
      if (!block || typeof block.type !== 'string') throw new SlackError('invalid_blocks');
      if (
        block.type === 'section' &&
        typeof block.text?.text === 'string' &&
        codePoints(block.text.text) > SECTION_TEXT
      )
        throw new SlackError('invalid_blocks');
    }
    return blocks;
  }

  /** Stores a message and lists it in `_inspect` (text unescaped, as a reader sees it). */
  function record(ws: SimWorkspace, m: SimMessage, media: InspectedPost['media']): SimMessage {
    store().messages.push(m);
    state.posts.push({
      id: m.ts,
      text: unescapeMrkdwn(m.text),
      media,
      replyTo: m.threadTs && m.threadTs !== m.ts ? m.threadTs : null,
      author: m.user,
      createdAt: now().toISOString(),
      destination: m.channel,
      extra: {
        team: ws.id,
        mrkdwn: m.text,
        ...(m.blocks ? { blocks: m.blocks } : {}),
        ...(m.username ? { username: m.username } : {}),
        ...(m.iconUrl ? { iconUrl: m.iconUrl } : {}),
        ...(m.metadata ? { metadata: m.metadata } : {}),
        ...(m.files ? { fileIds: m.files.map((f) => f.id) } : {}),
      },
    });
    return m;
  }

  const visible = (channel: string) => store().messages.filter((m) => m.channel === channel && !m.deleted);

  function inRange(m: SimMessage, args: Record<string, string>): boolean {
    const ts = Number(m.ts);
    const inclusive = bool(args.inclusive, false);
    if (args.oldest !== undefined && (inclusive ? ts < Number(args.oldest) : ts <= Number(args.oldest))) return false;
    if (args.latest !== undefined && (inclusive ? ts > Number(args.latest) : ts >= Number(args.latest))) return false;
    return true;
  }

  const handlers: Record<string, Handler> = {
    'auth.test': ({ ws }) => ({
      url: `https://${ws.domain}.slack.com/`,
      team: ws.name,
      user: 'herald',
      team_id: ws.id,
      user_id: ws.botUserId,
      bot_id: ws.botId,
      is_enterprise_install: false,
    }),
    'team.info': ({ ws, args }) => {
      if (args.team && args.team !== ws.id) throw new SlackError('team_not_found');
      return {
        team: {
          id: ws.id,
          name: ws.name,
          domain: ws.domain,
          email_domain: '',
          icon: { image_132: `https://avatars.slack-edge.test/${ws.id}-132.png`, image_default: false },
        },
      };
    },
    'conversations.list': ({ ws, args }) => {
      const types = (args.types ?? 'public_channel').split(',');
      const channels = ws.channels.filter((c) =>
        c.isPrivate ? types.includes('private_channel') && c.botMember : types.includes('public_channel'),
      );
      const start = args.cursor
        ? Number(Buffer.from(args.cursor, 'base64').toString('utf8').replace('offset:', ''))
        : 0;
      if (!Number.isInteger(start) || start < 0) throw new SlackError('invalid_cursor');
      const limit = Math.min(1000, Math.max(1, Number(args.limit ?? 100)));
      const page = channels.slice(start, start + limit);
      const next = start + limit < channels.length ? Buffer.from(`offset:${start + limit}`).toString('base64') : '';
      return { channels: page.map((c) => conversationJson(ws, c)), response_metadata: { next_cursor: next } };
    },
    'conversations.info': ({ ws, args }) => ({ channel: conversationJson(ws, findChannel(ws, args.channel)) }),
    'conversations.join': ({ ws, args }) => {
      const c = findChannel(ws, args.channel);
      if (c.isPrivate) throw new SlackError('method_not_supported_for_channel_type');
      c.botMember = true;
      return { channel: conversationJson(ws, c) };
    },
    'chat.postMessage': ({ ws, args }) => {
      const c = postable(ws, args.channel);
      const blocks = checkBlocks(args.blocks);
      const text = args.text ?? '';
      if (!text && !blocks && !args.attachments) throw new SlackError('no_text');
      if (codePoints(text) > TEXT_LIMIT) throw new SlackError('msg_too_long');
      const metadata = jsonArg(args.metadata, 'invalid_metadata_format') as SimMessage['metadata'] | undefined;
      if (
        metadata !== undefined &&
        (typeof metadata?.event_type !== 'string' ||
          typeof metadata.event_payload !== 'object' ||
          metadata.event_payload === null)
      ) {
        throw new SlackError('invalid_metadata_format');
      }
      const m = record(
        ws,
        {
          ts: nextTs(store(), now()),
          channel: c.id,
          team: ws.id,
          text,
          user: ws.botUserId,
          botId: ws.botId,
          ...(args.thread_ts ? { threadTs: args.thread_ts } : {}),
          ...(blocks ? { blocks } : {}),
          ...(metadata ? { metadata } : {}),
          ...(args.username ? { username: args.username } : {}),
          ...(args.icon_url ? { iconUrl: args.icon_url } : {}),
        },
        [],
      );
      return { channel: c.id, ts: m.ts, message: messageJson(ws, m, { metadata: true }) };
    },
    'chat.delete': ({ ws, args }) => {
      const c = findChannel(ws, args.channel);
      const m = visible(c.id).find((x) => x.ts === args.ts);
      if (!m) throw new SlackError('message_not_found');
      if (m.user !== ws.botUserId) throw new SlackError('cant_delete_message');
      m.deleted = true;
      markDeleted(state, m.ts, (p) => p.destination === c.id);
      return { channel: c.id, ts: m.ts };
    },
    /**
     * chat.update (https://api.slack.com/methods/chat.update): the app's own message only
     * (`cant_update_message`), text up to 4,000 characters, blocks kept when the update sends none, and the
     * workspace's editing window (`_config editWindowMinutes`) closes it (`edit_window_closed`).
     */
    'chat.update': ({ ws, args }) => {
      const c = findChannel(ws, args.channel);
      const m = visible(c.id).find((x) => x.ts === args.ts);
      if (!m) throw new SlackError('message_not_found');
      if (m.user !== ws.botUserId) throw new SlackError('cant_update_message');
      const blocks = checkBlocks(args.blocks);
      const text = args.text ?? '';
      if (!text && !blocks && !m.blocks && !m.files) throw new SlackError('no_text');
      if (codePoints(text) > UPDATE_TEXT_LIMIT) throw new SlackError('msg_too_long');
      const window = store().settings.editWindowMinutes;
      if (window !== null && now().getTime() - Number(m.ts) * 1000 > window * 60_000)
        throw new SlackError('edit_window_closed');
      m.text = text;
      if (blocks) m.blocks = blocks;
      m.edited = { user: ws.botUserId, ts: nextTs(store(), now()) };
      const seen = state.posts.find((p) => p.id === m.ts && p.destination === c.id);
      if (seen) {
        seen.text = unescapeMrkdwn(text);
        seen.extra = { ...seen.extra, mrkdwn: text, edited: true, ...(m.blocks ? { blocks: m.blocks } : {}) };
      }
      // The documented answer's message has `text` (and `blocks` as an object): only the text is echoed.
      return { channel: c.id, ts: m.ts, text, message: { text } };
    },
    'conversations.history': ({ ws, args }) => {
      const c = findChannel(ws, args.channel);
      if (!c.botMember) throw new SlackError('not_in_channel');
      const all = visible(c.id);
      const parents = all.filter((m) => !m.threadTs || m.threadTs === m.ts).filter((m) => inRange(m, args));
      const limit = Math.min(999, Math.max(1, Number(args.limit ?? 100)));
      const newest = [...parents].reverse();
      const page = newest.slice(0, limit);
      const metadata = bool(args.include_all_metadata, false);
      return {
        messages: page.map((m) =>
          messageJson(ws, m, { metadata, replies: all.filter((r) => r.threadTs === m.ts && r.ts !== m.ts) }),
        ),
        has_more: newest.length > page.length,
        pin_count: 0,
        channel_actions_ts: null,
        channel_actions_count: 0,
      };
    },
    'conversations.replies': ({ ws, args }) => {
      const c = findChannel(ws, args.channel);
      if (!c.botMember) throw new SlackError('not_in_channel');
      const all = visible(c.id);
      const parent = all.find((m) => m.ts === args.ts);
      if (!parent) throw new SlackError('thread_not_found');
      const replies = all.filter((m) => m.threadTs === parent.ts && m.ts !== parent.ts);
      const metadata = bool(args.include_all_metadata, false);
      const listed = [
        {
          ...messageJson(ws, parent, { metadata }),
          thread_ts: parent.ts,
          reply_count: replies.length,
          subscribed: false,
        },
        ...replies.filter((m) => inRange(m, args)).map((m) => messageJson(ws, m, { metadata })),
      ];
      return { messages: listed, has_more: false };
    },
    'users.list': ({ ws, args }) => {
      const start = args.cursor
        ? Number(Buffer.from(args.cursor, 'base64').toString('utf8').replace('offset:', ''))
        : 0;
      if (!Number.isInteger(start) || start < 0) throw new SlackError('invalid_cursor');
      const limit = Math.min(1000, Math.max(1, Number(args.limit ?? 200)));
      const page = ws.users.slice(start, start + limit);
      const next = start + limit < ws.users.length ? Buffer.from(`offset:${start + limit}`).toString('base64') : '';
      return {
        members: page.map((u) => userJson(ws, u, 1_700_000_000)),
        cache_ts: Math.floor(now().getTime() / 1000),
        response_metadata: { next_cursor: next },
      };
    },
    'files.getUploadURLExternal': ({ ws, args }) => {
      const length = Number(args.length);
      if (!Number.isInteger(length) || length <= 0 || length > FILE_LIMIT) throw new SlackError('invalid_length');
      if (!args.filename?.trim()) throw new SlackError('invalid_filename');
      const id = fileId();
      store().files.set(id, {
        id,
        team: ws.id,
        filename: args.filename,
        length,
        received: null,
        mimetype: 'application/octet-stream',
        shared: false,
      });
      return { upload_url: `${state.baseUrl()}/upload/v1/${id}`, file_id: id };
    },
    'files.completeUploadExternal': ({ ws, args }) => {
      const list = jsonArg(args.files, 'invalid_arguments');
      if (
        !Array.isArray(list) ||
        list.length === 0 ||
        list.length > 10 ||
        list.some((f) => typeof (f as { id?: unknown })?.id !== 'string')
      )
        throw new SlackError('invalid_arguments');
      const files = (list as { id: string; title?: string }[]).map((f) => {
        const file = store().files.get(f.id);
        if (!file || file.team !== ws.id || file.received === null || file.shared || file.deleted)
          throw new SlackError('file_not_found');
        return { file, title: f.title ?? file.filename };
      });
      const comment = args.initial_comment ?? '';
      if (codePoints(comment) > TEXT_LIMIT) throw new SlackError('msg_too_long');
      if (args.channel_id) {
        const c = postable(ws, args.channel_id);
        if (args.thread_ts && !visible(c.id).some((m) => m.ts === args.thread_ts))
          throw new SlackError('invalid_arguments');
        for (const { file } of files) file.shared = true;
        record(
          ws,
          {
            ts: nextTs(store(), now()),
            channel: c.id,
            team: ws.id,
            text: comment,
            user: ws.botUserId,
            botId: ws.botId,
            ...(args.thread_ts ? { threadTs: args.thread_ts } : {}),
            files: files.map(({ file, title }) => ({
              id: file.id,
              name: file.filename,
              title,
              mimetype: file.mimetype,
              size: file.length,
            })),
          },
          files.map(({ file }) => ({
            type: file.mimetype.startsWith('image/')
              ? 'image'
              : file.mimetype.startsWith('video/')
                ? 'video'
                : 'document',
            mimeType: file.mimetype,
            size: file.length,
            url: `https://files.slack.test/${file.id}/${encodeURIComponent(file.filename)}`,
          })),
        );
      }
      return { files: files.map(({ file, title }) => ({ id: file.id, title })) };
    },
    'files.delete': ({ ws, args }) => {
      const file = store().files.get(args.file ?? '');
      if (!file || file.team !== ws.id) throw new SlackError('file_not_found');
      if (file.deleted) throw new SlackError('file_deleted');
      file.deleted = true;
      for (const m of store().messages) {
        if (m.files?.some((f) => f.id === file.id) && m.files.every((f) => store().files.get(f.id)?.deleted)) {
          m.deleted = true;
          markDeleted(state, m.ts, (p) => p.destination === m.channel);
        }
      }
      return {};
    },
  };

  return {
    has: (method: string) => method in handlers || method === 'oauth.v2.access',
    async call(method: string, call: MethodCall): Promise<Record<string, unknown>> {
      if (method === 'oauth.v2.access') return exchangeToken(state, now, call);
      return handlers[method]({ ...call, ws: call.ws! });
    },
  };
}
