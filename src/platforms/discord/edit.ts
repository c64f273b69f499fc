import { PlatformError, type EditTextRequest, type EditTextResult, type PlatformIO } from '../types.js';
import type { DiscordWebhook } from './api.js';
import { identityOf, parsePostRef, type Call } from './publish.js';
import { TEXT } from './rules.js';

/** Discord's refusals of an edit, said plainly (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json). */
const REFUSALS: Record<string, string> = {
  '10008': 'the message is gone (deleted in Discord)',
  '50005': 'the message was not sent by this bot (or by its webhook), so it cannot be edited',
  '50083': 'the thread of the message is archived',
};

/**
 * Edits a message's content (https://discord.com/developers/docs/resources/message#edit-message): no time
 * limit, the id unchanged, 2,000 characters as for a new message. A message sent with a custom identity
 * went through the channel's webhook and only that webhook may edit it
 * (https://discord.com/developers/docs/resources/webhook#edit-webhook-message); the bot edits its own.
 * A forum post's message lives in the thread it starts, which its link names.
 */
export async function editMessage(
  call: Call,
  req: EditTextRequest,
  io: PlatformIO,
  botId: (io: PlatformIO) => Promise<string>,
): Promise<EditTextResult> {
  if (TEXT.count(req.content) > TEXT.limit)
    throw new PlatformError('rejected', `Discord text is limited to ${TEXT.limit} characters`, {
      platformCode: '50035',
    });
  const { channelId, messageId } = parsePostRef(req.account, req.platformPostId);
  // The message's own channel is the one in its link (`/channels/<guild>/<channel>/<message>`): for a
  // forum post, the thread it starts rather than the forum the post id names.
  const linked = /\/channels\/\d+\/(\d+)\/(\d+)$/.exec(req.platformPostUrl ?? '');
  const where = linked && linked[2] === messageId ? linked[1] : channelId;
  // Forum posts are the bot's own (publishing sends them without the webhook).
  const webhook = where === channelId && identityOf(req) ? await ownWebhook(call, io, where, await botId(io)) : null;
  try {
    await call(
      io,
      webhook
        ? {
            method: 'PATCH',
            path: `/webhooks/${webhook.id}/${webhook.token}/messages/${messageId}`,
            loggedPath: `/webhooks/${webhook.id}/<token>/messages/${messageId}`,
            json: { content: req.content },
          }
        : { method: 'PATCH', path: `/channels/${where}/messages/${messageId}`, json: { content: req.content } },
    );
  } catch (error) {
    if (!(error instanceof PlatformError) || error.kind !== 'rejected') throw error;
    const plain = error.platformCode ? REFUSALS[error.platformCode] : undefined;
    if (!plain) throw error;
    throw new PlatformError('rejected', plain, {
      status: error.status,
      endpoint: error.endpoint,
      raw: error.raw,
      platformCode: error.platformCode,
      cause: error,
    });
  }
  return { platformPostId: req.platformPostId, platformPostUrl: req.platformPostUrl };
}

/** The channel's webhook this bot made (the one publishing used); none: the bot edits as itself. */
async function ownWebhook(
  call: Call,
  io: PlatformIO,
  channelId: string,
  botId: string,
): Promise<{ id: string; token: string } | null> {
  const hooks = await call<DiscordWebhook[]>(io, { method: 'GET', path: `/channels/${channelId}/webhooks` });
  const own = hooks.find((w) => w.type === 1 && w.user?.id === botId && w.token);
  return own ? { id: own.id, token: own.token! } : null;
}
