import type { FastifyReply } from 'fastify';
import type { FaultKind } from '../faults.js';
import { hangUp, type SimulatorState } from '../types.js';
import { xTextTooLong } from './count.js';
import { editHistoryOf, invalidRequest, nextSnowflake, problem, xStore, type XTweet, type XUser } from './store.js';

/*
 * `POST /2/tweets` with `edit_options.previous_post_id`: X's edit (https://docs.x.com/x-api/posts/create-post,
 * "Create or Edit Post"; the rules: https://docs.x.com/x-api/fundamentals/edit-posts). The edit makes a
 * new version with a new id; the versions form a chain (`edit_history_tweet_ids`, oldest first) and only
 * the newest can be edited again. Refused, as 403 problems:
 * - by an account without a paid subscription (`subscription_type` None): X's edit is a Premium feature;
 * - another account's post, or a reply to another account's post (self-threads may be edited);
 * - after the edit window: one hour from the ORIGINAL post (X's help centre and the hosted contract say
 *   one hour for Premium; the developer pages still say 30 minutes, from the time edits were tested);
 * - after five edits.
 * The new version keeps the previous one's media unless the request names others.
 */

/** How long after the original post an edit is accepted. */
const EDIT_WINDOW_MS = 60 * 60_000;
/** Edits a post may have (the chain then holds six versions). */
const MAX_EDITS = 5;
const PAID = new Set(['Basic', 'Premium', 'PremiumPlus']);

export interface EditBody {
  text?: string;
  media?: { media_ids: string[] };
  edit_options: { previous_post_id: string };
}

export function editTweet(
  state: SimulatorState,
  reply: FastifyReply,
  user: XUser,
  body: EditBody,
  now: Date,
  sendFault: (reply: FastifyReply, fault: FaultKind | null, rejection: string) => boolean,
) {
  const store = xStore(state);
  const previousId = body.edit_options.previous_post_id;
  const previous = store.tweets.get(previousId);
  if (!previous || previous.deleted)
    return invalidRequest(reply, [
      {
        parameter: 'edit_options.previous_post_id',
        value: previousId,
        message: 'The post you are editing does not exist.',
      },
    ]);
  const text = body.text ?? '';
  if (text && xTextTooLong(text))
    return problem(
      reply,
      400,
      'Invalid Request',
      'Your Tweet text is too long.',
      'https://api.twitter.com/2/problems/invalid-request',
    );
  const mediaIds = body.media?.media_ids ?? previous.mediaIds;
  if (!text && mediaIds.length === 0)
    return invalidRequest(reply, [{ parameter: 'text', message: 'Post text or media is required' }]);
  if (body.media && mediaIds.some((id) => store.media.get(id)?.ownerId !== user.id || !store.media.get(id)?.finalized))
    return invalidRequest(reply, [{ parameter: 'media.media_ids', message: 'Your media IDs are invalid.' }]);
  const history = editHistoryOf(previous);
  const original = store.tweets.get(history[0]) ?? previous;
  const parent = previous.replyTo ? store.tweets.get(previous.replyTo) : undefined;
  const refusal =
    previous.authorId !== user.id
      ? 'You are not allowed to edit this Post.'
      : !PAID.has(user.subscriptionType ?? 'None')
        ? 'Editing a Post requires an X Premium subscription.'
        : parent && parent.authorId !== user.id
          ? "A reply to another account's Post cannot be edited."
          : previous.editedInto
            ? 'Only the latest version of a Post can be edited.'
            : now.getTime() - Date.parse(original.createdAt) > EDIT_WINDOW_MS
              ? 'This Post can no longer be edited: its edit window has closed.'
              : history.length > MAX_EDITS
                ? `This Post has already been edited ${MAX_EDITS} times, the most X allows.`
                : null;
  if (refusal) return problem(reply, 403, 'Forbidden', refusal);

  const fault = state.faults.take('publish');
  if (sendFault(reply, fault, 'You are not allowed to edit this Post.')) return reply;
  const id = nextSnowflake(store);
  const version: XTweet = {
    ...previous,
    id,
    text,
    mediaIds,
    // The chain keeps the original's time: the window and the timeline order are the original's.
    createdAt: previous.createdAt,
    editHistory: [...history, id],
    editedInto: undefined,
  };
  previous.editedInto = id;
  store.tweets.set(id, version);
  const shown = state.posts.find((p) => p.id === previousId);
  state.posts.push({
    id,
    text,
    media: shown?.media ?? [],
    replyTo: version.replyTo,
    author: user.username,
    createdAt: now.toISOString(),
    extra: { ...shown?.extra, edited: true, editHistory: version.editHistory, mediaIds },
  });
  if (shown) shown.extra = { ...shown.extra, editedInto: id };
  if (fault === 'ambiguous') return hangUp(reply);
  return reply.status(201).send({ data: { id, text, edit_history_tweet_ids: version.editHistory } });
}

/** Every version of `t`'s chain (deleting one deletes them all). */
export function versionsOf(state: SimulatorState, t: XTweet): XTweet[] {
  const root = editHistoryOf(t)[0];
  return [...xStore(state).tweets.values()].filter((v) => editHistoryOf(v)[0] === root);
}
