import { PlatformError, type EditTextRequest, type EditTextResult, type PlatformIO } from '../types.js';
import { xRequest, type TwitterOptions } from './api.js';
import { TEXT } from './rules.js';

/** Verified (premium) accounts may post long text, edits included. */
const LONG_POST_LIMIT = 25_000;

/**
 * Edits a post: `POST /2/tweets` with `edit_options.previous_post_id`, the same call that creates one
 * (https://docs.x.com/x-api/posts/create-post, "Create or Edit Post"). X makes a new version with a NEW
 * id, so the answer is the new id and URL. X decides whether the post may still be edited (the account's
 * Premium subscription, the edit window from the original post, five edits at most, no edit of a reply
 * to someone else: https://docs.x.com/x-api/fundamentals/edit-posts) and answers a refusal as a 403
 * problem, which reaches the caller as a `rejected` error with X's own detail. The text is checked here
 * first so that a text X would refuse anyway costs no call.
 */
export async function editTweet(
  opts: TwitterOptions,
  req: EditTextRequest,
  io: PlatformIO,
  token: string,
  postUrl: (id: string) => string,
): Promise<EditTextResult> {
  const max = req.account.metadata.verified === true ? LONG_POST_LIMIT : TEXT.limit;
  const weighted = TEXT.count(req.content);
  if (weighted > max)
    throw new PlatformError('rejected', `the post is ${weighted} weighted characters; X allows ${max}`, {
      platformCode: 'text_too_long',
    });
  if (!/^\d{1,19}$/.test(req.platformPostId))
    throw new PlatformError('rejected', `${req.platformPostId} is not an X post id`, { platformCode: 'post_id' });
  // NOTE: media are not sent: the new version keeps the previous one's (Herald never changes media on edit).
  const res = await xRequest(io, {
    method: 'POST',
    url: `${opts.apiUrl}/2/tweets`,
    token,
    json: { text: req.content, edit_options: { previous_post_id: req.platformPostId } },
    // A lost answer leaves unknown whether the new version exists.
    creates: true,
  });
  const id = (res.body as { data?: { id?: unknown } } | null)?.data?.id;
  if (typeof id !== 'string')
    throw new PlatformError('ambiguous', 'X accepted the edit but returned no id', {
      endpoint: '/2/tweets',
      status: res.status,
    });
  return { platformPostId: id, platformPostUrl: postUrl(id) };
}
