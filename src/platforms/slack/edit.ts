import { textRuleError } from '../rules/text.js';
import type { TextRule } from '../rules/types.js';
import { PlatformError, type EditTextRequest, type EditTextResult, type PlatformIO } from '../types.js';
import { botToken, slackCall, type SlackOptions } from './api.js';
import { escapeMrkdwn, TEXT } from './rules.js';

/**
 * chat.update takes at most 4,000 characters, a tenth of chat.postMessage's 40,000, counted like the post
 * limit on the escaped text (https://api.slack.com/methods/chat.update, `msg_too_long`).
 */
const EDIT_TEXT: TextRule = { ...TEXT, limit: 4_000 };

/** chat.update's refusals, said plainly (Slack's code stays the error's platformCode). */
const REFUSALS: Record<string, string> = {
  message_not_found: 'the message is no longer in the channel',
  cant_update_message: 'the message was not posted by this app, so it cannot be edited',
  edit_window_closed: "the workspace's message editing setting no longer allows editing this message",
  msg_too_long: `an edited message takes at most ${EDIT_TEXT.limit} characters`,
  is_inactive: 'the channel is archived',
};

/**
 * chat.update of the message's text (https://api.slack.com/methods/chat.update): the ts stays the id.
 * Blocks are not sent, so a message with blocks keeps them (Slack retains blocks an update leaves out)
 * and the text is their fallback. A post whose file share never showed as a message is its file id
 * (`F...`): there is no message to update.
 */
export async function editMessage(
  opts: SlackOptions,
  req: EditTextRequest,
  io: PlatformIO,
  channel: string,
): Promise<EditTextResult> {
  if (/^F[A-Z0-9]+$/.test(req.platformPostId))
    throw new PlatformError('rejected', 'the file share never showed as a message, so there is no message to edit', {
      platformCode: 'no_message',
    });
  const tooLong = textRuleError(EDIT_TEXT, req.content);
  if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'msg_too_long' });
  try {
    await slackCall(opts, io, 'chat.update', {
      token: botToken(req.account),
      params: { channel, ts: req.platformPostId, text: escapeMrkdwn(req.content) },
    });
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
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
