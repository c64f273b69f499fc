import type { PlatformIO } from '../types.js';
import { slackCall, type SlackOptions } from './api.js';

/** A message as conversations.history and conversations.replies list it (the fields Herald reads). */
export interface SlackMessage {
  ts: string;
  text?: string;
  bot_id?: string | null;
  thread_ts?: string;
  files?: { id: string }[];
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

/** The event type of the message metadata Herald sets on its posts (https://api.slack.com/metadata/using). */
export const METADATA_EVENT = 'herald_post';

/**
 * The channel's messages since `oldest` (epoch seconds), newest first: conversations.history for the
 * channel, or conversations.replies for one thread (replies are not in the channel's history,
 * https://api.slack.com/methods/conversations.replies). At most 200 (two pages): enough for the few
 * minutes a lookup covers.
 */
export async function recentMessages(
  opts: SlackOptions,
  io: PlatformIO,
  token: string,
  where: { channel: string; threadTs?: string; oldest: number },
): Promise<SlackMessage[]> {
  const method = where.threadTs ? 'conversations.replies' : 'conversations.history';
  const out: SlackMessage[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 2; page++) {
    const answer = await slackCall(opts, io, method, {
      token,
      params: {
        channel: where.channel,
        ...(where.threadTs ? { ts: where.threadTs } : {}),
        oldest: where.oldest.toFixed(6),
        limit: 100,
        include_all_metadata: true,
        cursor,
      },
    });
    out.push(...((answer.messages ?? []) as SlackMessage[]));
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return out;
}
