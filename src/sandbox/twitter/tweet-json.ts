import { editHistoryOf, type XTweet } from './store.js';

/**
 * A post as X answers it in `data` (https://docs.x.com/x-api/fundamentals/fields): `id`, `text` and
 * `edit_history_tweet_ids` always, the rest only when `tweet.fields` asks for it. The reads that serve
 * further fields (metrics, the replied-to author) add them beside these.
 */
export function tweetCore(t: XTweet, fields: Set<string>): Record<string, unknown> {
  return {
    id: t.id,
    text: t.text,
    edit_history_tweet_ids: editHistoryOf(t),
    ...(fields.has('created_at') ? { created_at: t.createdAt } : {}),
    ...(fields.has('author_id') ? { author_id: t.authorId } : {}),
    ...(fields.has('conversation_id') ? { conversation_id: t.conversationId ?? t.id } : {}),
    ...(fields.has('referenced_tweets') && t.replyTo
      ? { referenced_tweets: [{ type: 'replied_to', id: t.replyTo }] }
      : {}),
  };
}
