import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import { textRuleError } from '../rules/text.js';
import { postReplies } from '../thread.js';
import {
  PlatformError,
  type AccountCredentials,
  type MediaRef,
  type PlatformAdapter,
  type PlatformIO,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { botToken, messageUrl, slackCall, type SlackOptions } from './api.js';
import { slackChannels } from './channels.js';
import { editMessage } from './edit.js';
import { shareFiles, uploadFile } from './files.js';
import { METADATA_EVENT, recentMessages, type SlackMessage } from './messages.js';
import { SLACK_DEFAULT_SCOPES, slackOAuth } from './oauth.js';
import { blockIssues, escapeMrkdwn, TEXT } from './rules.js';
import { slackMembers } from './tools.js';

export type { SlackOptions } from './api.js';

export function slackOptions(config: Config): SlackOptions {
  const scopes = config.env.SLACK_SCOPES;
  return {
    apiUrl: platformBaseUrl(config, 'slack', 'https://slack.com'),
    authUrl: platformBaseUrl(config, 'slack', 'https://slack.com', 'AUTH'),
    clientId: platformSetting(config, 'slack', 'CLIENT_ID'),
    clientSecret: platformSetting(config, 'slack', 'CLIENT_SECRET'),
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : SLACK_DEFAULT_SCOPES,
  };
}

/** The Slack adapter, with the members read its `slack-members` route calls. */
export interface SlackAdapter extends PlatformAdapter<PublishResult> {
  members: ReturnType<typeof slackMembers>;
}

function channelOf(account: AccountCredentials): string {
  const channel = account.metadata.channelId ?? account.platformUserId;
  if (typeof channel !== 'string' || !channel)
    throw new PlatformError('rejected', 'the Slack account names no channel; connect a channel');
  return channel;
}

/** A posted message: its ts is its id, and the thread's parent for the replies that follow. */
interface Posted {
  id: string;
  url: string | null;
}

/** How long a file share may take to show up as a message before the file id stands for it. */
const SHARE_LOOKS = [0, 300, 1000];

export function createSlackAdapter(opts: SlackOptions): SlackAdapter {
  const oauth = slackOAuth(opts);

  /** The message's author shown (chat:write.customize): the post's own, else the account's default. */
  function identity(account: AccountCredentials, psd: Record<string, unknown>) {
    const username = (psd.username as string | undefined) || (account.metadata.defaultUsername as string | undefined);
    const iconUrl = (psd.iconUrl as string | undefined) || (account.metadata.defaultIconUrl as string | undefined);
    return { ...(username ? { username } : {}), ...(iconUrl ? { icon_url: iconUrl } : {}) };
  }

  function checkText(text: string) {
    const tooLong = textRuleError(TEXT, text);
    if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'msg_too_long' });
  }

  /**
   * The message that shares `fileId`: completeUploadExternal answers the files, not the message, and
   * Slack shares them asynchronously, so the message is looked for a few times. Null when it never
   * showed: the file id then stands for the post (unpublish deletes the file).
   */
  async function shareMessage(
    io: PlatformIO,
    token: string,
    channel: string,
    fileId: string,
    threadTs: string | undefined,
    since: number,
  ): Promise<string | null> {
    for (const wait of SHARE_LOOKS) {
      if (wait) await new Promise((r) => setTimeout(r, wait));
      const found = (await recentMessages(opts, io, token, { channel, threadTs, oldest: since }).catch(() => [])).find(
        (m) => m.files?.some((f) => f.id === fileId),
      );
      if (found) return found.ts;
    }
    return null;
  }

  /** One message: text (and blocks) by chat.postMessage, or files with the text as their comment. */
  async function post(
    req: PublishRequest,
    io: PlatformIO,
    part: { text: string; media: MediaRef[]; threadTs?: string; root: boolean },
  ): Promise<Posted> {
    const token = botToken(req.account);
    const channel = channelOf(req.account);
    const psd = req.platformSpecificData ?? {};
    checkText(part.text);
    const text = escapeMrkdwn(part.text);
    const teamUrl = req.account.metadata.teamUrl;
    if (part.media.length) {
      const since = io.now().getTime() / 1000 - 60;
      const files = [];
      for (const [i, m] of part.media.entries()) files.push(await uploadFile(opts, io, token, m, i));
      if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled before sharing the files');
      await shareFiles(opts, io, token, { channel, files, comment: text, threadTs: part.threadTs });
      const ts = await shareMessage(io, token, channel, files[0].id, part.threadTs, since);
      return ts ? { id: ts, url: messageUrl(teamUrl, channel, ts) } : { id: files[0].id, url: null };
    }
    const blocks = part.root && Array.isArray(psd.blocks) ? psd.blocks : null;
    if (blocks) {
      const issues = blockIssues(blocks);
      if (issues.length) throw new PlatformError('rejected', issues[0].message, { platformCode: 'invalid_blocks' });
    }
    if (!text.trim() && !blocks)
      throw new PlatformError('rejected', 'a Slack message needs text, blocks or files', { platformCode: 'no_text' });
    if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled before sending');
    const sent = await slackCall(opts, io, 'chat.postMessage', {
      token,
      creates: true,
      params: {
        channel,
        text,
        ...(blocks ? { blocks: JSON.stringify(blocks) } : {}),
        ...(part.threadTs ? { thread_ts: part.threadTs } : {}),
        ...(psd.unfurlLinks !== undefined ? { unfurl_links: psd.unfurlLinks === true } : {}),
        ...(psd.unfurlMedia !== undefined ? { unfurl_media: psd.unfurlMedia === true } : {}),
        ...identity(req.account, psd),
        // The idempotency key rides along as message metadata, so a lookup finds exactly this post.
        metadata: JSON.stringify({
          event_type: METADATA_EVENT,
          event_payload: { idempotency_key: req.idempotencyKey, root: part.root },
        }),
      },
    });
    const ts = String(sent.ts);
    return { id: ts, url: messageUrl(teamUrl, channel, ts) };
  }

  function matches(req: PublishRequest, m: SlackMessage): boolean {
    const payload = m.metadata?.event_type === METADATA_EVENT ? m.metadata.event_payload : undefined;
    if (payload) return payload.idempotency_key === req.idempotencyKey && payload.root !== false;
    // A file share carries no metadata: the same comment text with files, by a bot.
    return (
      req.media.length > 0 &&
      Boolean(m.files?.length) &&
      Boolean(m.bot_id) &&
      (m.text ?? '') === escapeMrkdwn(req.content)
    );
  }

  return {
    platform: 'slack',
    oauth,

    /**
     * The root (text and blocks, or files with the text as comment), then each thread item as a reply
     * in the root's thread (`thread_ts` is always the thread's parent: Slack threads are one level,
     * https://api.slack.com/messaging/managing#threading). `threadTs` makes the whole post a reply in
     * an existing thread.
     */
    async publish(req, io) {
      const psd = req.platformSpecificData ?? {};
      const given = typeof psd.threadTs === 'string' && psd.threadTs ? psd.threadTs : undefined;
      for (const item of req.threadItems) checkText(item.content);
      const root: Posted = req.resume
        ? { id: req.resume.platformPostId, url: req.resume.platformPostUrl }
        : await post(req, io, { text: req.content, media: req.media, threadTs: given, root: true });
      const threadTs = given ?? root.id;
      const replies: Posted[] = req.resume ? req.resume.replies.map((r) => ({ id: r.id, url: r.url ?? null })) : [];
      const progress = () => ({
        platformPostId: root.id,
        platformPostUrl: root.url,
        replies: replies.map((r) => ({ id: r.id, url: r.url })),
      });
      await postReplies(req, io, { root, replies, progress }, (item) =>
        post(req, io, { text: item.content, media: item.media, threadTs, root: false }),
      );
      return {
        platformPostId: root.id,
        platformPostUrl: root.url,
        extra: { channelId: channelOf(req.account), ...(replies.length ? { replyIds: replies.map((r) => r.id) } : {}) },
      };
    },

    /** The channel's (or the given thread's) messages since the attempt began, matched on the metadata Herald set. */
    async findPublished(req, since, io) {
      const channel = channelOf(req.account);
      const psd = req.platformSpecificData ?? {};
      const threadTs = typeof psd.threadTs === 'string' && psd.threadTs ? psd.threadTs : undefined;
      const oldest = since.getTime() / 1000 - 60;
      const found = (await recentMessages(opts, io, botToken(req.account), { channel, threadTs, oldest })).find((m) =>
        matches(req, m),
      );
      return found
        ? {
            platformPostId: found.ts,
            platformPostUrl: messageUrl(req.account.metadata.teamUrl, channel, found.ts),
            extra: { channelId: channel },
          }
        : null;
    },

    /**
     * chat.delete of the message (https://api.slack.com/methods/chat.delete), its thread's replies
     * first (deleting a parent leaves its replies under a tombstone). A post whose file share never
     * showed as a message is its file: files.delete.
     */
    async unpublish(account, platformPostId, io, thread) {
      const token = botToken(account);
      const channel = channelOf(account);
      const remove = async (id: string) => {
        try {
          if (/^F[A-Z0-9]+$/.test(id)) await slackCall(opts, io, 'files.delete', { token, params: { file: id } });
          else await slackCall(opts, io, 'chat.delete', { token, params: { channel, ts: id } });
        } catch (error) {
          // Already gone is what was asked.
          if (
            !(
              error instanceof PlatformError &&
              (error.platformCode === 'message_not_found' || error.platformCode === 'file_deleted')
            )
          )
            throw error;
        }
      };
      for (const reply of [...(thread?.replies ?? [])].reverse()) await remove(reply.id);
      await remove(platformPostId);
    },

    /** chat.update of the message's text (edit.ts), at most 4,000 characters. */
    editText: (req, io) => editMessage(opts, req, io, channelOf(req.account)),

    /**
     * Rotating tokens (https://api.slack.com/authentication/rotation) refresh with oauth.v2.access; a
     * bot token without rotation never expires, so an `auth` answer is checked with auth.test: a token
     * Slack still takes is kept, a dead one disconnects the account.
     */
    async refreshTokens(account, io) {
      if (account.refreshToken) return oauth.refresh(account.refreshToken, io);
      await slackCall(opts, io, 'auth.test', { token: botToken(account) });
      return { accessToken: botToken(account), refreshToken: null, expiresAt: null };
    },

    destinations: slackChannels(opts),
    members: slackMembers(opts),
  };
}

/** The Slack adapter from configuration (SLACK_CLIENT_ID/SECRET, SLACK_API_URL, SLACK_AUTH_URL, SLACK_SCOPES). */
export function slackAdapterFromConfig(config: Config): SlackAdapter {
  return createSlackAdapter(slackOptions(config));
}
